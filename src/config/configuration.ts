import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { registerAs, type ConfigType } from '@nestjs/config';
import {
  processEnvironmentVariables,
  validateEnvironment,
  type EnvironmentVariables,
  type LogLevel,
} from './environment.js';
import { loadJwtKeys } from './jwt-keys.js';
import { objectStorageSettings } from './object-storage.js';

/** Development-only default for the demo users; never accepted in production. */
export const DEVELOPMENT_SEED_PASSWORD = 'ChangeMe-Dev-Only-2026!';

/**
 * One Nest config namespace (inject with `@Inject(x.KEY) config: ConfigType<typeof x>`), derived
 * from the validated environment. Called by ConfigModule, or directly (main.ts, the migration CLI),
 * it derives its value from this process's environment once and hands out that same object after.
 * `build` derives it from any validated environment (the tests' private ones).
 */
function configNamespace<const Name extends string, T extends object>(
  name: Name,
  build: (env: EnvironmentVariables) => T,
) {
  let value: T | undefined;
  return Object.assign(
    registerAs(name, (): T => (value ??= build(processEnvironmentVariables()))),
    { namespace: name, build },
  );
}

export const appConfig = configNamespace('app', (env) => ({
  nodeEnv: env.NODE_ENV,
  host: env.HOST,
  port: env.PORT,
  /** How long SIGTERM waits for in-flight requests before the process exits anyway. */
  shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
}));

export const loggingConfig = configNamespace('logging', (env) => ({
  level: env.LOG_LEVEL ?? ((env.NODE_ENV === 'test' ? 'warn' : 'info') as LogLevel),
}));

export const httpConfig = configNamespace('http', (env) => ({
  corsOrigins: env.CORS_ORIGINS,
  bodyLimitBytes: env.BODY_LIMIT_BYTES,
  /** Trust X-Forwarded-For from a reverse proxy to find the client address. */
  trustProxy: env.TRUST_PROXY,
  /** Longest a request may take before it is answered 503 (a hung database must not hang clients). */
  requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
}));

export const databaseConfig = configNamespace('database', (env) => ({
  connection: env.DATABASE_URL,
  /** Statement/connection timeout towards the database, in milliseconds. */
  timeoutMs: env.DB_TIMEOUT_MS,
  /** SQLite's busy wait per attempt; Transactions.run retries a busy SQLite with an asynchronous back-off. */
  sqliteBusyTimeoutMs: env.DB_SQLITE_BUSY_TIMEOUT_MS,
  /** Run pending migrations when the service starts (always on for SQLite). */
  migrationsRun: env.DB_MIGRATIONS_RUN || env.DATABASE_URL.type === 'sqlite',
}));

export const jwtConfig = configNamespace('jwt', (env) => ({
  ...loadJwtKeys(env, env.NODE_ENV === 'production'),
  expiresInSeconds: env.JWT_EXPIRES_IN,
  issuer: env.JWT_ISSUER,
  audience: env.JWT_AUDIENCE,
}));

export const passwordHashConfig = configNamespace('passwordHash', (env) => ({
  /** How many argon2 hashes may run at once (each takes one libuv thread and 19 MiB). */
  concurrency: env.PASSWORD_HASH_CONCURRENCY,
  /** Nice value for libuv's pool threads where hashing runs (Linux; 0 leaves them alone). */
  niceness: env.PASSWORD_HASH_NICENESS,
}));

export const loginThrottleConfig = configNamespace('loginThrottle', (env) => ({
  /** Attempts per client address per window. */
  ipLimit: env.LOGIN_RATE_LIMIT_PER_IP,
  ipWindowSeconds: env.LOGIN_RATE_WINDOW_PER_IP_SECONDS,
  /** Attempts per username per window; a successful login resets it. */
  usernameLimit: env.LOGIN_RATE_LIMIT_PER_USERNAME,
  usernameWindowSeconds: env.LOGIN_RATE_WINDOW_PER_USERNAME_SECONDS,
}));

export const redisConfig = configNamespace('redis', (env) => ({
  /** Shared throttling counters across instances; in memory when unset. */
  url: env.REDIS_URL,
  /** Prefix of every key this service writes to Redis (several deployments can share one Redis). */
  keyPrefix: env.REDIS_KEY_PREFIX,
}));

/** The one place of the seed password rule: SEED_PASSWORD, else the development default outside production. */
export const seedConfig = configNamespace('seed', (env) => {
  const developmentDefault = env.SEED_PASSWORD === undefined && env.NODE_ENV !== 'production';
  return {
    /** Undefined in production without SEED_PASSWORD: seeding is then refused. */
    password: developmentDefault ? DEVELOPMENT_SEED_PASSWORD : env.SEED_PASSWORD,
    /** True when the password is the documented development default (safe to print). */
    developmentDefault,
    /** Seed demo data at start-up when the database has no users. */
    demo: env.SEED_DEMO,
  };
});

export const storageConfig = configNamespace('storage', (env) => ({
  /** fs: files under STORAGE_DIR; s3: objects in S3_BUCKET. */
  driver: env.STORAGE_DRIVER,
  /** Root of the content-addressed file store (files by SHA-256, temporary files under tmp/). */
  dir: env.STORAGE_DIR,
  /** The S3 settings, checked together; undefined with the fs driver. */
  s3: env.STORAGE_DRIVER === 's3' ? objectStorageSettings(env) : undefined,
  /** Names this instance's temporary files, so that instances sharing a store leave each other's alone. */
  instanceId:
    env.INSTANCE_ID ??
    `${
      hostname()
        .replace(/[^A-Za-z0-9_-]/g, '')
        .slice(0, 40) || 'dms'
    }-${randomBytes(6).toString('hex')}`,
  /** Largest accepted upload; crossing it answers 413 at once and keeps nothing. */
  uploadMaxBytes: env.UPLOAD_MAX_BYTES,
  /** Days a deleted document stays in the trash before the purge removes it and its files. */
  trashRetentionDays: env.TRASH_RETENTION_DAYS,
}));

export const notificationsConfig = configNamespace('notifications', (env) => ({
  /** SMTP server for e-mail notifications; without it no e-mail notifications are created. */
  smtpUrl: env.SMTP_URL,
  mailFrom: env.MAIL_FROM,
  /** First retry of a failed e-mail after this many seconds, doubling each time. */
  retryBaseSeconds: env.NOTIFY_RETRY_BASE_SECONDS,
  /** Attempts in all before an e-mail notification is marked failed. */
  maxAttempts: env.NOTIFY_MAX_ATTEMPTS,
  /** Local hour (0-23, in each user's time zone) of the daily e-mail digest. */
  dailyDigestHour: env.NOTIFY_DAILY_DIGEST_HOUR,
  sseHeartbeatSeconds: env.SSE_HEARTBEAT_SECONDS,
  sseMaxStreamsPerUser: env.SSE_MAX_STREAMS_PER_USER,
}));

export const governanceConfig = configNamespace('governance', (env) => ({
  /** all: a review publishes when every reviewer approved; any: on the first approval. */
  reviewPolicy: env.REVIEW_POLICY,
  /** Longest check-out lock a user may take, in minutes. */
  lockMaxMinutes: env.LOCK_MAX_MINUTES,
  /** Latest expiry of a share link, in days from its creation. */
  shareMaxDays: env.SHARE_MAX_DAYS,
  /** Origin (and path prefix) of the share links' URLs; unset: the URL is a path (/s/<token>). */
  shareBaseUrl: env.SHARE_BASE_URL?.replace(/\/+$/, '') ?? '',
}));

export const webhooksConfig = configNamespace('webhooks', (env) => ({
  /** A delivery attempt (connect, send, answer) taking longer fails and is retried. */
  timeoutSeconds: env.WEBHOOK_TIMEOUT_SECONDS,
  /** First retry after this many seconds, doubling (capped at 6 h), plus up to 20 % jitter. */
  retryBaseSeconds: env.WEBHOOK_RETRY_BASE_SECONDS,
  /** Attempts in all before a delivery is marked failed. */
  maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
  /** A hook whose last this-many finished deliveries all failed is disabled. */
  disableAfter: env.WEBHOOK_DISABLE_AFTER,
  /** Deliveries this instance starts per second at most, in 50 ms slices (the API keeps its share of the CPU). */
  maxPerSecond: env.WEBHOOK_MAX_PER_SECOND,
  /** Accept http:// receivers (development only). */
  allowHttp: env.WEBHOOK_ALLOW_HTTP,
  /** Hosts reachable even though they resolve to private or loopback addresses. */
  allowedHosts: env.WEBHOOK_ALLOWED_HOSTS,
}));

export const contentConfig = configNamespace('content', (env) => ({
  /** Characters kept per version; the rest of a longer text is not indexed. */
  maxChars: env.CONTENT_MAX_CHARS,
  /** A PDF with more pages is too_large. */
  maxPages: env.CONTENT_MAX_PAGES,
  /** Longest extraction of one version; its tools are killed then and the version is failed. */
  timeoutMs: env.CONTENT_TIMEOUT_SECONDS * 1000,
  /** Bytes a DOCX/ODT may unpack to (more: failed, a zip bomb) and a text file may have (more: too_large). */
  maxUncompressedBytes: env.CONTENT_MAX_UNCOMPRESSED_BYTES,
  /** Extractions running at once in this instance (0: this instance extracts nothing). */
  workers: env.CONTENT_WORKERS,
  /** Undefined: on when tesseract is installed. */
  ocrEnabled: env.OCR_ENABLED,
  ocrLanguages: env.OCR_LANGUAGES,
}));

export const CONFIG_NAMESPACES = [
  appConfig,
  loggingConfig,
  httpConfig,
  databaseConfig,
  jwtConfig,
  passwordHashConfig,
  loginThrottleConfig,
  redisConfig,
  seedConfig,
  storageConfig,
  notificationsConfig,
  governanceConfig,
  webhooksConfig,
  contentConfig,
] as const;

type Namespace = (typeof CONFIG_NAMESPACES)[number];

/** The whole configuration, one property per namespace. */
export type Configuration = { [N in Namespace as N['namespace']]: ConfigType<N> };

export type AppConfig = ConfigType<typeof appConfig>;
export type LoggingConfig = ConfigType<typeof loggingConfig>;
export type HttpConfig = ConfigType<typeof httpConfig>;
export type DatabaseConfig = ConfigType<typeof databaseConfig>;
export type JwtConfig = ConfigType<typeof jwtConfig>;
export type PasswordHashConfig = ConfigType<typeof passwordHashConfig>;
export type LoginThrottleConfig = ConfigType<typeof loginThrottleConfig>;
export type RedisConfig = ConfigType<typeof redisConfig>;
export type SeedConfig = ConfigType<typeof seedConfig>;
export type StorageConfig = ConfigType<typeof storageConfig>;
export type NotificationsConfig = ConfigType<typeof notificationsConfig>;
export type GovernanceConfig = ConfigType<typeof governanceConfig>;
export type WebhooksConfig = ConfigType<typeof webhooksConfig>;
export type ContentConfig = ConfigType<typeof contentConfig>;

function assemble(value: (namespace: Namespace) => object): Configuration {
  return Object.fromEntries(CONFIG_NAMESPACES.map((ns) => [ns.namespace, value(ns)])) as Configuration;
}

/**
 * This process's configuration: every namespace, from the environment read and validated once.
 * main.ts calls it before the app exists (the Fastify adapter needs the body limit and the logger
 * level first); ConfigModule's factories then hand the app these same objects, so nothing is parsed
 * twice. Throws ConfigError naming the variable.
 */
export function loadConfiguration(): Configuration {
  return assemble((ns) => ns());
}

/** The configuration of an explicit environment map, leaving process.env alone (tests, one per app). */
export function buildConfiguration(env: Record<string, string | undefined>): Configuration {
  const variables = validateEnvironment(env);
  return assemble((ns) => ns.build(variables));
}
