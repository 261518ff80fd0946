import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/database-url.js';

export type DatabaseKind = 'sqlite' | 'mysql';

/**
 * The databases every e2e suite runs on: SQLite always, MySQL/MariaDB when TEST_DATABASE_URL is set.
 * Under CI=true a missing TEST_DATABASE_URL is an error, never a silent skip.
 */
export function databasesUnderTest(): DatabaseKind[] {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    if (process.env.CI === 'true') {
      throw new Error('CI=true but TEST_DATABASE_URL is not set: the MySQL e2e run must not be skipped.');
    }
    return ['sqlite'];
  }
  return ['sqlite', 'mysql'];
}

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  drop(): Promise<void>;
}

/** A brand-new, empty database for one suite. */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'dms-test-'));
    return {
      kind,
      url: `sqlite:${join(dir, 'test.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.TEST_DATABASE_URL!;
  const parsed = parseDatabaseUrl(base);
  if (parsed.type !== 'mysql') throw new Error('TEST_DATABASE_URL must be a mysql:// URL');
  // Refuse anything that does not look like a throw-away test database.
  if (!/test/i.test(parsed.database)) {
    throw new Error(`Refusing to use database "${parsed.database}": its name must contain "test".`);
  }
  const name = `${parsed.database}_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({
    host: parsed.host,
    port: parsed.port,
    user: parsed.username,
    password: parsed.password,
  });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    drop: async () => {
      const connection = await createConnection({
        host: parsed.host,
        port: parsed.port,
        user: parsed.username,
        password: parsed.password,
      });
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}

/** A plain connection to a test database (no entities, not yet initialized): for a test's own reads, or to hold a lock. */
export function testDataSource(database: Pick<TestDatabase, 'kind' | 'url'>): DataSource {
  return new DataSource(
    database.kind === 'sqlite'
      ? { type: 'better-sqlite3', database: database.url.slice('sqlite:'.length) }
      : { type: 'mysql', url: database.url },
  );
}
