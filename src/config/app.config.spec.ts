import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEVELOPMENT_SEED_PASSWORD,
  loadAppConfig,
  parseDatabaseUrl,
  parseDuration,
} from './app.config.js';

const SECRET = 'x'.repeat(32);

describe('loadAppConfig', () => {
  it('applies documented defaults outside production', () => {
    const config = loadAppConfig({});
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({ type: 'sqlite', path: 'data/dms.sqlite' });
    expect(config.migrationsRun).toBe(true);
    expect(config.jwt.generated).toBe(true);
    expect(config.jwt.signingKey.type).toBe('secret');
    expect(config.jwt.algorithm).toBe('HS256');
    expect(config.jwt.expiresInSeconds).toBe(3600);
    expect(config.seedPassword).toBe(DEVELOPMENT_SEED_PASSWORD);
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.passwordHashConcurrency).toBe(availableParallelism());
    expect(config.passwordHashNiceness).toBe(19);
    expect(config.notificationSeekCacheEntries).toBe(10_000);
  });

  it('refuses to start in production without a JWT secret, or with a short one', () => {
    expect(() => loadAppConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET is required/);
    expect(() => loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/at least 32/);
    expect(() => loadAppConfig({ JWT_SECRET: 'short' })).toThrow(ConfigError);
  });

  it('has no seed password in production unless SEED_PASSWORD is set', () => {
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }).seedPassword).toBeUndefined();
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET, SEED_PASSWORD: 'p' }).seedPassword).toBe('p');
  });

  it('names the bad variable', () => {
    expect(() => loadAppConfig({ PORT: 'abc' })).toThrow(/PORT must be an integer/);
    expect(() => loadAppConfig({ PORT: '70000' })).toThrow(/PORT must be between/);
    expect(() => loadAppConfig({ NODE_ENV: 'staging' })).toThrow(/NODE_ENV/);
    expect(() => loadAppConfig({ DATABASE_URL: 'postgres://x/y' })).toThrow(/DATABASE_URL/);
    expect(() => loadAppConfig({ JWT_EXPIRES_IN: 'soon' })).toThrow(/JWT_EXPIRES_IN/);
    expect(() => loadAppConfig({ DB_MIGRATIONS_RUN: 'maybe' })).toThrow(/DB_MIGRATIONS_RUN/);
    expect(() => loadAppConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadAppConfig({ CORS_ORIGINS: 'not an origin' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadAppConfig({ PASSWORD_HASH_NICENESS: '20' })).toThrow(/PASSWORD_HASH_NICENESS must be between/);
    expect(() => loadAppConfig({ NOTIFICATION_SEEK_CACHE_ENTRIES: '-1' })).toThrow(/NOTIFICATION_SEEK_CACHE_ENTRIES/);
  });

  it('makes MySQL migrations at start a setting, always on for SQLite', () => {
    const url = 'mysql://u:p@db:3307/dms';
    expect(loadAppConfig({ DATABASE_URL: url }).migrationsRun).toBe(false);
    expect(loadAppConfig({ DATABASE_URL: url, DB_MIGRATIONS_RUN: 'true' }).migrationsRun).toBe(true);
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
    expect(loadAppConfig({ NODE_ENV: 'production', ...pemOf(rsa) }).jwt.algorithm).toBe('RS256');
    expect(loadAppConfig({ ...pemOf(ec) }).jwt.algorithm).toBe('ES256');
    const escaped = pemOf(ec);
    escaped.JWT_PRIVATE_KEY = escaped.JWT_PRIVATE_KEY.replace(/\n/g, '\\n');
    expect(loadAppConfig(escaped).jwt.verificationKey.type).toBe('public');
  });

  it('refuses half a pair, a mismatched pair, weak RSA and other curves', () => {
    expect(() => loadAppConfig({ JWT_PRIVATE_KEY: pemOf(rsa).JWT_PRIVATE_KEY })).toThrow(/set together/);
    expect(() =>
      loadAppConfig({ JWT_PRIVATE_KEY: pemOf(rsa).JWT_PRIVATE_KEY, JWT_PUBLIC_KEY: pemOf(ec).JWT_PUBLIC_KEY }),
    ).toThrow(/does not belong/);
    expect(() => loadAppConfig(pemOf(generateKeyPairSync('rsa', { modulusLength: 1024 })))).toThrow(/2048/);
    expect(() => loadAppConfig(pemOf(generateKeyPairSync('ec', { namedCurve: 'secp384r1' })))).toThrow(/P-256/);
    expect(() => loadAppConfig({ JWT_PRIVATE_KEY: 'nope', JWT_PUBLIC_KEY: 'nope' })).toThrow(/JWT_PRIVATE_KEY/);
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
