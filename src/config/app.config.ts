import { availableParallelism } from 'node:os';
import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { registerAs } from '@nestjs/config';

export type NodeEnv = 'development' | 'production' | 'test';

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | {
      type: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
    };

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface JwtConfig {
  /**
   * Keys are loaded once as KeyObjects: jsonwebtoken verifies a KeyObject ~50x faster than a
   * string secret. For HS256 both are the same secret key.
   */
  signingKey: KeyObject;
  verificationKey: KeyObject;
  /** True when no secret was configured and a random one was made (development only). */
  generated: boolean;
  /** The one algorithm tokens are signed with and the only one accepted. */
  algorithm: JwtAlgorithm;
  expiresInSeconds: number;
  issuer: string;
  audience: string;
}

export interface AppConfig {
  nodeEnv: NodeEnv;
  host: string;
  port: number;
  database: DatabaseConfig;
  /** Run pending migrations when the service starts (always on for SQLite). */
  migrationsRun: boolean;
  /** Statement/connection timeout towards the database, in milliseconds. */
  databaseTimeoutMs: number;
  jwt: JwtConfig;
  seedPassword: string | undefined;
  seedDemo: boolean;
  corsOrigins: string[];
  bodyLimitBytes: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How many argon2 hash verifications may run at once (each takes one libuv thread). */
  passwordHashConcurrency: number;
  /** Nice value for libuv's pool threads where hashing runs (Linux; 0 leaves them alone). */
  passwordHashNiceness: number;
  loginThrottle: {
    /** Attempts per client address per window. */
    ipLimit: number;
    ipWindowSeconds: number;
    /** Attempts per username per window; a successful login resets it. */
    usernameLimit: number;
    usernameWindowSeconds: number;
  };
  /**
   * How many (user, filter) lists keep remembered deep-page positions (0 turns it off); each
   * holds at most a few dozen positions, so 10,000 lists cost a few MB.
   */
  notificationSeekCacheEntries: number;
  /** Shared throttling counters across instances; in memory when unset. */
  redisUrl: string | undefined;
  /** Prefix of every key this service writes to Redis (several deployments can share one Redis). */
  redisKeyPrefix: string;
  /** Trust X-Forwarded-For from a reverse proxy to find the client address. */
  trustProxy: boolean;
  /** Longest a request may take before it is answered 503 (a hung database must not hang clients). */
  requestTimeoutMs: number;
  /** How long SIGTERM waits for in-flight requests before the process exits anyway. */
  shutdownGraceMs: number;
}

/** Thrown at start-up when the environment is invalid; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/dms.sqlite';
/** Development-only default for the demo users; never accepted in production. */
export const DEVELOPMENT_SEED_PASSWORD = 'ChangeMe-Dev-Only-2026!';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.REDIS_URL;
  if (!raw) return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(raw)) throw new ConfigError('REDIS_URL must look like redis://host:6379/0');
  return raw;
}

/** PEM from an environment variable; literal "\n" sequences (common in .env files) become newlines. */
function pem(raw: string): string {
  return raw.includes('-----BEGIN') ? raw.replace(/\\n/g, '\n') : Buffer.from(raw, 'base64').toString('utf8');
}

/**
 * HS256 with JWT_SECRET by default; RS256 or ES256 (P-256) when JWT_PRIVATE_KEY and
 * JWT_PUBLIC_KEY are set, the algorithm following the key type.
 */
function loadJwtKeys(
  env: NodeJS.ProcessEnv,
  production: boolean,
): Pick<JwtConfig, 'signingKey' | 'verificationKey' | 'generated' | 'algorithm'> {
  const privatePem = env.JWT_PRIVATE_KEY;
  const publicPem = env.JWT_PUBLIC_KEY;
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

  const secret = env.JWT_SECRET;
  if (secret === undefined || secret === '') {
    if (production) throw new ConfigError('JWT_SECRET is required when NODE_ENV=production (at least 32 characters)');
    const key = createSecretKey(randomBytes(48));
    return { signingKey: key, verificationKey: key, generated: true, algorithm: 'HS256' };
  }
  if (Buffer.byteLength(secret) < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  const key = createSecretKey(Buffer.from(secret));
  return { signingKey: key, verificationKey: key, generated: false, algorithm: 'HS256' };
}

/** Parses "3600", "90s", "15m", "1h" or "7d" into seconds. */
export function parseDuration(name: string, raw: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a duration such as 3600, 15m, 1h or 1d, got "${raw}"`);
  const factor = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * factor;
  if (seconds < 1 || seconds > 30 * 86400) throw new ConfigError(`${name} must be between 1 second and 30 days`);
  return seconds;
}

export function parseDatabaseUrl(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:data/dms.sqlite');
    return { type: 'sqlite', path };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be sqlite:PATH or mysql://user:pass@host:port/db');
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw new ConfigError(`DATABASE_URL scheme "${url.protocol}" is not supported; use sqlite: or mysql://`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new ConfigError('DATABASE_URL must name a database, e.g. mysql://user:pass@host:3306/dms');
  return {
    type: 'mysql',
    host: url.hostname || '127.0.0.1',
    port: url.port ? Number(url.port) : 3306,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
  };
}

/** Loads ./.env into process.env (without overriding real variables) for the CLIs; the app uses ConfigModule. */
export function loadDotEnvFile(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The database part of the configuration alone, for the migration CLI and the admin commands. */
export function loadDatabaseConfig(
  env: NodeJS.ProcessEnv = process.env,
): Pick<AppConfig, 'database' | 'databaseTimeoutMs'> {
  return {
    database: parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL),
    databaseTimeoutMs: integer(env, 'DB_TIMEOUT_MS', 5000, 100, 120000),
  };
}

/**
 * Reads and validates the whole environment once. Every failure names the variable,
 * so a misconfigured deployment stops at start-up instead of failing per request.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const nodeEnvRaw = env.NODE_ENV ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnvRaw)) {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnvRaw}"`);
  }
  const nodeEnv = nodeEnvRaw as NodeEnv;
  const production = nodeEnv === 'production';

  const { database, databaseTimeoutMs } = loadDatabaseConfig(env);

  const jwtKeys = loadJwtKeys(env, production);

  const seedPassword = env.SEED_PASSWORD || (production ? undefined : DEVELOPMENT_SEED_PASSWORD);

  const logLevel = (env.LOG_LEVEL || (nodeEnv === 'test' ? 'warn' : 'info')) as AppConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const corsOrigins = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^\s/]+$/.test(origin)) {
      throw new ConfigError(`CORS_ORIGINS entries must be origins like https://app.example.com, got "${origin}"`);
    }
  }

  return {
    nodeEnv,
    host: env.HOST || '0.0.0.0',
    port: integer(env, 'PORT', 3000, 0, 65535),
    database,
    migrationsRun: boolean(env, 'DB_MIGRATIONS_RUN', false) || database.type === 'sqlite',
    databaseTimeoutMs,
    jwt: {
      ...jwtKeys,
      expiresInSeconds: parseDuration('JWT_EXPIRES_IN', env.JWT_EXPIRES_IN || '1h'),
      issuer: env.JWT_ISSUER || 'document-management-service',
      audience: env.JWT_AUDIENCE || 'document-management-service',
    },
    seedPassword,
    seedDemo: boolean(env, 'SEED_DEMO', false),
    corsOrigins,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 16 * 1024 * 1024),
    logLevel,
    // Every core may hash; the hashing threads run at a lower priority, so requests still come first.
    passwordHashConcurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', availableParallelism(), 1, 64),
    passwordHashNiceness: integer(env, 'PASSWORD_HASH_NICENESS', 19, 0, 19),
    loginThrottle: {
      ipLimit: integer(env, 'LOGIN_RATE_LIMIT_PER_IP', 30, 1, 1_000_000),
      ipWindowSeconds: integer(env, 'LOGIN_RATE_WINDOW_PER_IP_SECONDS', 60, 1, 86400),
      usernameLimit: integer(env, 'LOGIN_RATE_LIMIT_PER_USERNAME', 5, 1, 1_000_000),
      usernameWindowSeconds: integer(env, 'LOGIN_RATE_WINDOW_PER_USERNAME_SECONDS', 300, 1, 86400),
    },
    notificationSeekCacheEntries: integer(env, 'NOTIFICATION_SEEK_CACHE_ENTRIES', 10_000, 0, 1_000_000),
    redisUrl: redisUrl(env),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'dms:',
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 10000, 100, 600000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10000, 0, 600000),
  };
}

/** The validated configuration as a Nest config namespace; inject with `@Inject(appConfig.KEY)`. */
export const appConfig = registerAs('app', () => loadAppConfig());
