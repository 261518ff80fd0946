import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import {
  buildConfiguration,
  databaseConfig,
  DEVELOPMENT_SEED_PASSWORD,
  jwtConfig,
  loadConfiguration,
} from './configuration.js';
import { parseDatabaseUrl } from './database-url.js';
import { parseDuration } from './environment.js';

const SECRET = 'x'.repeat(32);

describe('buildConfiguration', () => {
  it('applies documented defaults outside production', () => {
    const config = buildConfiguration({});
    expect(config.app).toEqual({ nodeEnv: 'development', host: '0.0.0.0', port: 3000, shutdownGraceMs: 10_000 });
    expect(config.logging.level).toBe('info');
    expect(config.database).toEqual({
      connection: { type: 'sqlite', path: 'data/dms.sqlite' },
      timeoutMs: 5000,
      sqliteBusyTimeoutMs: 50,
      migrationsRun: true,
    });
    expect(config.jwt.generated).toBe(true);
    expect(config.jwt.signingKey.type).toBe('secret');
    expect(config.jwt.algorithm).toBe('HS256');
    expect(config.jwt.expiresInSeconds).toBe(3600);
    expect(config.jwt.issuer).toBe('document-management-service');
    expect(config.seed).toEqual({ password: DEVELOPMENT_SEED_PASSWORD, developmentDefault: true, demo: false });
    expect(config.http).toEqual({
      corsOrigins: [],
      bodyLimitBytes: 1024 * 1024,
      trustProxy: false,
      requestTimeoutMs: 10_000,
    });
    expect(config.passwordHash).toEqual({ concurrency: Math.min(availableParallelism(), 64), niceness: 0 });
    expect(config.loginThrottle).toEqual({
      ipLimit: 30,
      ipWindowSeconds: 60,
      usernameLimit: 5,
      usernameWindowSeconds: 300,
    });
    expect(config.redis).toEqual({ url: undefined, keyPrefix: 'dms:' });
  });

  it('reads every value it is given, and takes an empty value as unset', () => {
    const config = buildConfiguration({
      NODE_ENV: 'test',
      PORT: '8080',
      HOST: '',
      DB_MIGRATIONS_RUN: '1',
      DATABASE_URL: 'mysql://u:p@db/dms',
      JWT_EXPIRES_IN: '15m',
      PASSWORD_HASH_NICENESS: '19',
      TRUST_PROXY: 'true',
      CORS_ORIGINS: 'https://a.example, http://b.example:8080',
      REDIS_URL: 'redis://cache:6379/1',
      SEED_DEMO: 'true',
    });
    expect(config.app).toMatchObject({ nodeEnv: 'test', host: '0.0.0.0', port: 8080 });
    expect(config.logging.level).toBe('warn');
    expect(config.database.migrationsRun).toBe(true);
    expect(config.jwt.expiresInSeconds).toBe(900);
    expect(config.passwordHash.niceness).toBe(19);
    expect(config.http).toMatchObject({
      trustProxy: true,
      corsOrigins: ['https://a.example', 'http://b.example:8080'],
    });
    expect(config.redis.url).toBe('redis://cache:6379/1');
    expect(config.seed.demo).toBe(true);
  });

  it('refuses to start in production without a JWT secret, or with a short one', () => {
    expect(() => buildConfiguration({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET is required/);
    expect(() => buildConfiguration({ NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/at least 32/);
    expect(() => buildConfiguration({ JWT_SECRET: 'short' })).toThrow(ConfigError);
  });

  it('has the development seed password only outside production, and marks it as the default', () => {
    expect(buildConfiguration({ NODE_ENV: 'production', JWT_SECRET: SECRET }).seed).toMatchObject({
      password: undefined,
      developmentDefault: false,
    });
    expect(buildConfiguration({ NODE_ENV: 'production', JWT_SECRET: SECRET, SEED_PASSWORD: 'p' }).seed).toMatchObject({
      password: 'p',
      developmentDefault: false,
    });
    expect(buildConfiguration({ SEED_PASSWORD: 'p' }).seed).toMatchObject({ password: 'p', developmentDefault: false });
  });

  it('names the bad variable', () => {
    expect(() => buildConfiguration({ PORT: 'abc' })).toThrow(/PORT must be an integer/);
    expect(() => buildConfiguration({ PORT: '70000' })).toThrow(/PORT must be between/);
    expect(() => buildConfiguration({ PORT: '-1' })).toThrow(/PORT must be an integer/);
    expect(() => buildConfiguration({ NODE_ENV: 'staging' })).toThrow(/NODE_ENV/);
    expect(() => buildConfiguration({ DATABASE_URL: 'postgres://x/y' })).toThrow(/DATABASE_URL/);
    expect(() => buildConfiguration({ DATABASE_URL: 'mysql://root@localhost' })).toThrow(/DATABASE_URL must name/);
    expect(() => buildConfiguration({ JWT_EXPIRES_IN: 'soon' })).toThrow(/JWT_EXPIRES_IN/);
    expect(() => buildConfiguration({ DB_MIGRATIONS_RUN: 'maybe' })).toThrow(/DB_MIGRATIONS_RUN must be true or false/);
    expect(() => buildConfiguration({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => buildConfiguration({ CORS_ORIGINS: 'not an origin' })).toThrow(/CORS_ORIGINS/);
    expect(() => buildConfiguration({ REDIS_URL: 'http://cache' })).toThrow(/REDIS_URL/);
    expect(() => buildConfiguration({ PASSWORD_HASH_NICENESS: '20' })).toThrow(
      /PASSWORD_HASH_NICENESS must be between/,
    );
  });

  it('names every bad variable at once', () => {
    expect(() => buildConfiguration({ PORT: 'abc', LOG_LEVEL: 'loud', TRUST_PROXY: 'yes' })).toThrow(
      /PORT must be an integer.*; LOG_LEVEL must be one of.*; TRUST_PROXY must be true or false/,
    );
  });

  it('no longer reads NOTIFICATION_SEEK_CACHE_ENTRIES', () => {
    expect(() => buildConfiguration({ NOTIFICATION_SEEK_CACHE_ENTRIES: '-1' })).not.toThrow();
  });

  it('makes MySQL migrations at start a setting, always on for SQLite', () => {
    const url = 'mysql://u:p@db:3307/dms';
    expect(buildConfiguration({ DATABASE_URL: url }).database.migrationsRun).toBe(false);
    expect(buildConfiguration({ DATABASE_URL: url, DB_MIGRATIONS_RUN: 'true' }).database.migrationsRun).toBe(true);
  });

  it('leaves process.env alone', () => {
    const before = { ...process.env };
    buildConfiguration({ PORT: '1234', JWT_SECRET: SECRET, SEED_PASSWORD: 'p' });
    expect(process.env).toEqual(before);
  });
});

describe('storage configuration', () => {
  it('uses the file store by default, and an S3 bucket with STORAGE_DRIVER=s3', () => {
    expect(buildConfiguration({}).storage).toMatchObject({ driver: 'fs', dir: 'data/files', s3: undefined });
    const config = buildConfiguration({
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_BUCKET: 'dms-files',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      INSTANCE_ID: 'dms-1',
    });
    expect(config.storage).toMatchObject({
      driver: 's3',
      instanceId: 'dms-1',
      s3: {
        endpoint: 'http://127.0.0.1:9000',
        bucket: 'dms-files',
        region: 'us-east-1',
        accessKeyId: 'key',
        secretAccessKey: 'secret',
        forcePathStyle: true,
        presignedDownloads: false,
      },
    });
  });

  it('gives each process its own instance id when INSTANCE_ID is unset', () => {
    const first = buildConfiguration({}).storage.instanceId;
    expect(first).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(buildConfiguration({}).storage.instanceId).not.toBe(first);
  });

  it('refuses an S3 configuration that cannot work, naming every problem', () => {
    expect(() => buildConfiguration({ STORAGE_DRIVER: 'disk' })).toThrow(/STORAGE_DRIVER must be fs or s3/);
    expect(() => buildConfiguration({ S3_BUCKET: 'No_Such' })).toThrow(/S3_BUCKET must be a valid bucket name/);
    expect(() => buildConfiguration({ INSTANCE_ID: 'a b' })).toThrow(/INSTANCE_ID/);
    const refused = () =>
      buildConfiguration({ STORAGE_DRIVER: 's3', S3_ACCESS_KEY_ID: 'key', UPLOAD_MAX_BYTES: String(6 * 1024 ** 3) });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/S3_BUCKET is required.*S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.*UPLOAD_MAX_BYTES/);
  });
});

describe('loadConfiguration', () => {
  it("reads this process's environment once: every call and every namespace factory hands out the same objects", () => {
    const first = loadConfiguration();
    // A second parse would generate another random JWT key (NODE_ENV=test sets no JWT_SECRET here).
    expect(loadConfiguration().jwt).toBe(first.jwt);
    expect(jwtConfig()).toBe(first.jwt);
    expect(databaseConfig()).toBe(first.database);
  });
});

describe('asymmetric JWT keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pemOf = (pair: ReturnType<typeof generateKeyPairSync>) => ({
    JWT_PRIVATE_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });

  it('picks RS256 or ES256 from the key type, without needing JWT_SECRET in production', () => {
    expect(buildConfiguration({ NODE_ENV: 'production', ...pemOf(rsa) }).jwt.algorithm).toBe('RS256');
    expect(buildConfiguration({ ...pemOf(ec) }).jwt.algorithm).toBe('ES256');
    const escaped = pemOf(ec);
    escaped.JWT_PRIVATE_KEY = escaped.JWT_PRIVATE_KEY.replace(/\n/g, '\\n');
    expect(buildConfiguration(escaped).jwt.verificationKey.type).toBe('public');
  });

  it('refuses half a pair, a mismatched pair, weak RSA and other curves', () => {
    expect(() => buildConfiguration({ JWT_PRIVATE_KEY: pemOf(rsa).JWT_PRIVATE_KEY })).toThrow(/set together/);
    expect(() =>
      buildConfiguration({ JWT_PRIVATE_KEY: pemOf(rsa).JWT_PRIVATE_KEY, JWT_PUBLIC_KEY: pemOf(ec).JWT_PUBLIC_KEY }),
    ).toThrow(/does not belong/);
    expect(() => buildConfiguration(pemOf(generateKeyPairSync('rsa', { modulusLength: 1024 })))).toThrow(/2048/);
    expect(() => buildConfiguration(pemOf(generateKeyPairSync('ec', { namedCurve: 'secp384r1' })))).toThrow(/P-256/);
    expect(() => buildConfiguration({ JWT_PRIVATE_KEY: 'nope', JWT_PUBLIC_KEY: 'nope' })).toThrow(/JWT_PRIVATE_KEY/);
  });
});

describe('parseDatabaseUrl', () => {
  it('reads sqlite and mysql URLs', () => {
    expect(parseDatabaseUrl('sqlite:/tmp/a.sqlite')).toEqual({ type: 'sqlite', path: '/tmp/a.sqlite' });
    expect(parseDatabaseUrl('mysql://us%40er:p%3Ass@db:3307/dms')).toEqual({
      type: 'mysql',
      host: 'db',
      port: 3307,
      username: 'us@er',
      password: 'p:ss',
      database: 'dms',
    });
  });

  it('requires a database name', () => {
    expect(() => parseDatabaseUrl('mysql://root@localhost')).toThrow(/must name a database/);
  });
});

describe('parseDuration', () => {
  it('accepts seconds and unit suffixes', () => {
    expect(parseDuration('X', '90')).toBe(90);
    expect(parseDuration('X', '15m')).toBe(900);
    expect(parseDuration('X', '1h')).toBe(3600);
    expect(parseDuration('X', '2d')).toBe(172800);
    expect(() => parseDuration('X', '0')).toThrow(ConfigError);
    expect(() => parseDuration('X', '1y')).toThrow(ConfigError);
  });
});
