import type { JwtConfig } from '../config/configuration.js';

/** Claims this service puts in its tokens. */
export interface TokenClaims {
  sub: string;
  /** The user's token version at issue time; a bump in the user row revokes the token. */
  ver: number;
  iat?: number;
  exp?: number;
}

/**
 * One description of how tokens are signed and checked, fed to both JwtService (signing)
 * and AccessTokens (verifying), so the two can never drift apart.
 */
export function jwtSettings(jwt: JwtConfig) {
  return {
    signingKey: jwt.signingKey,
    verificationKey: jwt.verificationKey,
    algorithm: jwt.algorithm,
    /** Pinned: a token with any other alg (none, HS512, HS256 against an RSA public key...) is refused. */
    algorithms: [jwt.algorithm],
    issuer: jwt.issuer,
    audience: jwt.audience,
    expiresInSeconds: jwt.expiresInSeconds,
  };
}
