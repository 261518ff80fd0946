import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { ConfigError } from './config-error.js';

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface JwtKeys {
  /**
   * Keys are loaded once as KeyObjects: jsonwebtoken verifies a KeyObject ~50x faster than a
   * string secret. For HS256 both are the same secret key.
   */
  signingKey: KeyObject;
  verificationKey: KeyObject;
  /** True when no key was configured and a random one was made (outside production only). */
  generated: boolean;
  /** The one algorithm tokens are signed with and the only one accepted. */
  algorithm: JwtAlgorithm;
}

export interface JwtKeySources {
  JWT_SECRET?: string;
  JWT_PRIVATE_KEY?: string;
  JWT_PUBLIC_KEY?: string;
}

/** PEM from an environment variable; literal "\n" sequences (common in .env files) become newlines. */
function pem(raw: string): string {
  return raw.includes('-----BEGIN') ? raw.replace(/\\n/g, '\n') : Buffer.from(raw, 'base64').toString('utf8');
}

/**
 * HS256 with JWT_SECRET by default; RS256 or ES256 (P-256) when JWT_PRIVATE_KEY and
 * JWT_PUBLIC_KEY are set, the algorithm following the key type. Production refuses to start
 * without a configured key.
 */
export function loadJwtKeys(sources: JwtKeySources, production: boolean): JwtKeys {
  const { JWT_SECRET: secret, JWT_PRIVATE_KEY: privatePem, JWT_PUBLIC_KEY: publicPem } = sources;
  if (privatePem || publicPem) {
    if (!privatePem || !publicPem) {
      throw new ConfigError('JWT_PRIVATE_KEY and JWT_PUBLIC_KEY must be set together (PEM, or base64 of the PEM)');
    }
    let signingKey: KeyObject;
    let verificationKey: KeyObject;
    try {
      signingKey = createPrivateKey(pem(privatePem));
    } catch {
      throw new ConfigError('JWT_PRIVATE_KEY is not a readable PEM private key');
    }
    try {
      verificationKey = createPublicKey(pem(publicPem));
    } catch {
      throw new ConfigError('JWT_PUBLIC_KEY is not a readable PEM public key');
    }
    let algorithm: JwtAlgorithm;
    if (signingKey.asymmetricKeyType === 'rsa') {
      if ((signingKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
        throw new ConfigError('JWT_PRIVATE_KEY must be an RSA key of at least 2048 bits');
      }
      algorithm = 'RS256';
    } else if (signingKey.asymmetricKeyType === 'ec' && signingKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
      algorithm = 'ES256';
    } else {
      throw new ConfigError('JWT_PRIVATE_KEY must be an RSA (RS256) or P-256 EC (ES256) key');
    }
    const probe = Buffer.from('key-pair-check');
    if (!verify('sha256', probe, verificationKey, sign('sha256', probe, signingKey))) {
      throw new ConfigError('JWT_PUBLIC_KEY does not belong to JWT_PRIVATE_KEY');
    }
    return { signingKey, verificationKey, generated: false, algorithm };
  }

  if (secret === undefined || secret === '') {
    if (production) {
      throw new ConfigError(
        'JWT_SECRET is required when NODE_ENV=production (at least 32 characters), unless JWT_PRIVATE_KEY and JWT_PUBLIC_KEY are set',
      );
    }
    const key = createSecretKey(randomBytes(48));
    return { signingKey: key, verificationKey: key, generated: true, algorithm: 'HS256' };
  }
  if (Buffer.byteLength(secret) < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  const key = createSecretKey(Buffer.from(secret));
  return { signingKey: key, verificationKey: key, generated: false, algorithm: 'HS256' };
}
