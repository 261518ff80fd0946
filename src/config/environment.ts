import { availableParallelism } from 'node:os';
import { applyDecorators } from '@nestjs/common';
import { Expose, plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  ValidateBy,
  validateSync,
  type ValidationArguments,
} from 'class-validator';
import { ConfigError } from './config-error.js';
import { DEFAULT_DATABASE_URL, parseDatabaseUrl, type DatabaseConnection } from './database-url.js';

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

export const REVIEW_POLICIES = ['all', 'any'] as const;
export type ReviewPolicy = (typeof REVIEW_POLICIES)[number];
export const STORAGE_DRIVERS = ['fs', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A variable set to the empty string counts as unset, so `PORT=` in a .env file means "the default". */
const blank = (value: unknown): boolean => value === undefined || value === '';

/** A string variable; unset keeps the property's default. */
function StringVariable(): PropertyDecorator {
  return applyDecorators(
    Expose(),
    Transform(({ value }) => (blank(value) ? undefined : value)),
    IsOptional(),
    IsString(),
  );
}

/** An integer within [min, max]; the message tells a non-integer from an out-of-range value. */
function IntegerVariable(min: number, max: number): PropertyDecorator {
  return applyDecorators(
    Expose(),
    Transform(({ value }) => (blank(value) ? undefined : /^\d+$/.test(String(value)) ? Number(value) : value)),
    ValidateBy({
      name: 'integerVariable',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max,
        defaultMessage: ({ property, value }: ValidationArguments) =>
          typeof value === 'number'
            ? `${property} must be between ${min} and ${max}, got ${value}`
            : `${property} must be an integer, got "${String(value)}"`,
      },
    }),
  );
}

/** true/1 or false/0. */
function BooleanVariable(): PropertyDecorator {
  const values: Record<string, boolean> = { true: true, 1: true, false: false, 0: false };
  return applyDecorators(
    Expose(),
    Transform(({ value }) => (blank(value) ? undefined : (values[String(value)] ?? value))),
    IsBoolean({ message: '$property must be true or false, got "$value"' }),
  );
}

/** A value that is refused with the reason its parser gave (kept for the validator to report). */
class Unparsable {
  constructor(readonly reason: string) {}
}

/**
 * A variable with structure (a URL, a duration, a list): class-transformer parses it once, and
 * class-validator reports the parser's refusal, which names the variable.
 */
function ParsedVariable(parse: (raw: string, name: string) => unknown): PropertyDecorator {
  return applyDecorators(
    Expose(),
    Transform(({ value, key }) => {
      if (blank(value)) return undefined;
      try {
        return parse(String(value), key);
      } catch (error) {
        if (error instanceof ConfigError) return new Unparsable(error.message);
        throw error;
      }
    }),
    ValidateBy({
      name: 'parsedVariable',
      validator: {
        validate: (value: unknown) => !(value instanceof Unparsable),
        defaultMessage: ({ value }: ValidationArguments) => (value as Unparsable).reason,
      },
    }),
  );
}

/** Parses "3600", "90s", "15m", "1h" or "7d" into seconds (1 second to 30 days). */
export function parseDuration(name: string, raw: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a duration such as 3600, 15m, 1h or 1d, got "${raw}"`);
  const factor = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * factor;
  if (seconds < 1 || seconds > 30 * 86400) throw new ConfigError(`${name} must be between 1 second and 30 days`);
  return seconds;
}

/** Comma-separated host names or IP addresses, compared lower-case with a URL's host. */
function parseHostList(raw: string, name: string): string[] {
  const hosts = raw
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
  for (const host of hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host)) {
      throw new ConfigError(`${name} entries must be host names or IP addresses like hooks.example.com, got "${host}"`);
    }
  }
  return hosts;
}

function parseOrigins(raw: string, name: string): string[] {
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^\s/]+$/.test(origin)) {
      throw new ConfigError(`${name} entries must be origins like https://app.example.com, got "${origin}"`);
    }
  }
  return origins;
}

/**
 * Every environment variable the service reads, with its default and bounds: the one schema,
 * converted by class-transformer and checked by class-validator. The README's configuration
 * table and .env.example list the same variables.
 */
export class EnvironmentVariables {
  @Expose()
  @Transform(({ value }) => (blank(value) ? undefined : value))
  @IsIn(NODE_ENVS, { message: 'NODE_ENV must be development, production or test, got "$value"' })
  NODE_ENV: NodeEnv = 'development';

  @StringVariable() HOST = '0.0.0.0';
  @IntegerVariable(0, 65535) PORT = 3000;

  /** Unset: info, or warn when NODE_ENV=test. */
  @Expose()
  @Transform(({ value }) => (blank(value) ? undefined : value))
  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "$value"` })
  LOG_LEVEL?: LogLevel;

  @ParsedVariable((raw) => parseDatabaseUrl(raw))
  DATABASE_URL: DatabaseConnection = parseDatabaseUrl(DEFAULT_DATABASE_URL);

  @BooleanVariable() DB_MIGRATIONS_RUN = false;
  @IntegerVariable(100, 120_000) DB_TIMEOUT_MS = 5000;
  /** better-sqlite3 waits for a lock synchronously (the event loop stops): keep it short, Transactions retries. */
  @IntegerVariable(0, 5000) DB_SQLITE_BUSY_TIMEOUT_MS = 50;

  // The keys are checked together (pairs, sizes, production rules) by loadJwtKeys.
  @StringVariable() JWT_SECRET?: string;
  @StringVariable() JWT_PRIVATE_KEY?: string;
  @StringVariable() JWT_PUBLIC_KEY?: string;
  /** In seconds. */
  @ParsedVariable((raw, name) => parseDuration(name, raw)) JWT_EXPIRES_IN = 3600;
  @StringVariable() JWT_ISSUER = 'document-management-service';
  @StringVariable() JWT_AUDIENCE = 'document-management-service';

  @IntegerVariable(1, 64) PASSWORD_HASH_CONCURRENCY = Math.min(availableParallelism(), 64);
  @IntegerVariable(0, 19) PASSWORD_HASH_NICENESS = 0;

  @IntegerVariable(1, 1_000_000) LOGIN_RATE_LIMIT_PER_IP = 30;
  @IntegerVariable(1, 86_400) LOGIN_RATE_WINDOW_PER_IP_SECONDS = 60;
  @IntegerVariable(1, 1_000_000) LOGIN_RATE_LIMIT_PER_USERNAME = 5;
  @IntegerVariable(1, 86_400) LOGIN_RATE_WINDOW_PER_USERNAME_SECONDS = 300;

  @StringVariable()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must look like redis://host:6379/0' })
  REDIS_URL?: string;
  @StringVariable() REDIS_KEY_PREFIX = 'dms:';

  @ParsedVariable(parseOrigins) CORS_ORIGINS: string[] = [];
  @IntegerVariable(1024, 16 * 1024 * 1024) BODY_LIMIT_BYTES = 1024 * 1024;
  @BooleanVariable() TRUST_PROXY = false;
  @IntegerVariable(100, 600_000) REQUEST_TIMEOUT_MS = 10_000;
  @IntegerVariable(0, 600_000) SHUTDOWN_GRACE_MS = 10_000;

  @StringVariable() SEED_PASSWORD?: string;
  @BooleanVariable() SEED_DEMO = false;

  // Documents: stored files and the trash.
  @StringVariable() STORAGE_DIR = 'data/files';
  @IntegerVariable(1, 1024 * 1024 * 1024 * 1024) UPLOAD_MAX_BYTES = 100 * 1024 * 1024;
  @IntegerVariable(0, 3650) TRASH_RETENTION_DAYS = 30;
  @Expose()
  @Transform(({ value }) => (blank(value) ? undefined : value))
  @IsIn(STORAGE_DRIVERS, { message: 'STORAGE_DRIVER must be fs or s3, got "$value"' })
  STORAGE_DRIVER: StorageDriver = 'fs';
  /** Names this instance's temporary files; unset: one made up per process (see docs/operations.md). */
  @StringVariable()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'INSTANCE_ID must be 1-64 letters, digits, - or _' })
  INSTANCE_ID?: string;
  // S3-compatible object storage (STORAGE_DRIVER=s3); checked together by the storage configuration.
  @StringVariable()
  @Matches(/^https?:\/\/\S+$/, { message: 'S3_ENDPOINT must look like https://s3.example.com' })
  S3_ENDPOINT?: string;
  @StringVariable()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message: 'S3_BUCKET must be a valid bucket name (3-63 of a-z 0-9 . -)',
  })
  S3_BUCKET?: string;
  @StringVariable() S3_REGION = 'us-east-1';
  @StringVariable() S3_ACCESS_KEY_ID?: string;
  @StringVariable() S3_SECRET_ACCESS_KEY?: string;
  @BooleanVariable() S3_FORCE_PATH_STYLE = false;
  @BooleanVariable() S3_PRESIGNED_DOWNLOADS = false;

  // Content: text extraction, OCR and the job queue that runs them.
  @IntegerVariable(0, 100_000_000) CONTENT_MAX_CHARS = 1_000_000;
  @IntegerVariable(1, 100_000) CONTENT_MAX_PAGES = 1_000;
  @IntegerVariable(1, 86_400) CONTENT_TIMEOUT_SECONDS = 120;
  @IntegerVariable(1024, 16 * 1024 * 1024 * 1024) CONTENT_MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024;
  @IntegerVariable(0, 64) CONTENT_WORKERS = Math.max(1, Math.min(availableParallelism() - 1, 4));
  /** Unset: on when the tesseract binary is found. */
  @Expose()
  @Transform(({ value }) =>
    blank(value) ? undefined : ({ true: true, 1: true, false: false, 0: false }[String(value)] ?? value),
  )
  @IsOptional()
  @IsBoolean({ message: 'OCR_ENABLED must be true or false, got "$value"' })
  OCR_ENABLED?: boolean;
  @StringVariable()
  @Matches(/^[a-z_]{3,16}(\+[a-z_]{3,16})*$/, { message: 'OCR_LANGUAGES must look like eng or eng+deu' })
  OCR_LANGUAGES = 'eng';
  // Notifications: e-mail delivery and live streams.
  @StringVariable()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must look like smtp://user:pass@host:587 or smtps://host:465' })
  SMTP_URL?: string;
  @StringVariable() MAIL_FROM = 'Document Management Service <no-reply@localhost>';
  @IntegerVariable(1, 86_400) NOTIFY_RETRY_BASE_SECONDS = 5;
  @IntegerVariable(1, 100) NOTIFY_MAX_ATTEMPTS = 5;
  @IntegerVariable(0, 23) NOTIFY_DAILY_DIGEST_HOUR = 8;
  @IntegerVariable(1, 3_600) SSE_HEARTBEAT_SECONDS = 25;
  @IntegerVariable(1, 1_000) SSE_MAX_STREAMS_PER_USER = 5;

  // Governance: reviews, check-out locks, share links.
  @Expose()
  @Transform(({ value }) => (blank(value) ? undefined : value))
  @IsIn(REVIEW_POLICIES, { message: 'REVIEW_POLICY must be all or any, got "$value"' })
  REVIEW_POLICY: ReviewPolicy = 'all';
  @IntegerVariable(1, 525_600) LOCK_MAX_MINUTES = 480;
  @IntegerVariable(1, 3650) SHARE_MAX_DAYS = 30;
  @StringVariable()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'SHARE_BASE_URL must look like https://dms.example.com' })
  SHARE_BASE_URL?: string;
  // Webhooks: delivery, retries and which receivers may be reached.
  @IntegerVariable(1, 300) WEBHOOK_TIMEOUT_SECONDS = 10;
  @IntegerVariable(1, 86_400) WEBHOOK_RETRY_BASE_SECONDS = 30;
  @IntegerVariable(1, 100) WEBHOOK_MAX_ATTEMPTS = 13;
  @IntegerVariable(1, 10_000) WEBHOOK_DISABLE_AFTER = 50;
  @IntegerVariable(1, 100_000) WEBHOOK_MAX_PER_SECOND = 250;
  @BooleanVariable() WEBHOOK_ALLOW_HTTP = false;
  @ParsedVariable(parseHostList) WEBHOOK_ALLOWED_HOSTS: string[] = [];
}

/**
 * Converts and validates an environment (process.env, or a test's own map). Every bad variable is
 * named in the one ConfigError thrown, so a misconfigured deployment stops at start-up.
 */
export function validateEnvironment(env: Record<string, string | undefined>): EnvironmentVariables {
  const variables = plainToInstance(EnvironmentVariables, env, {
    excludeExtraneousValues: true,
    // An unset variable keeps the property's default.
    exposeUnsetFields: false,
  });
  const errors = validateSync(variables, { forbidUnknownValues: true });
  if (errors.length) {
    throw new ConfigError(errors.map((error) => Object.values(error.constraints ?? {})[0]).join('; '));
  }
  return variables;
}

/** Loads ./.env into process.env (variables already set win), as the service and every CLI do. */
export function loadDotEnvFile(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

let processEnvironment: EnvironmentVariables | undefined;

/** This process's environment (./.env first), read and validated once; later calls get the same object. */
export function processEnvironmentVariables(): EnvironmentVariables {
  if (!processEnvironment) {
    loadDotEnvFile();
    processEnvironment = validateEnvironment(process.env);
  }
  return processEnvironment;
}
