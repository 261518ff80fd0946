// Fails loudly when a TypeORM upgrade changes the driver internals the SQL runner relies on.
import { createRequire } from 'node:module';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  databasesUnderTest,
  type DatabaseKind,
  type TestDatabase,
} from '../../test/support/databases.js';
import { acquireMysqlConnection, nativeConnection } from './typeorm-native.js';

type Class = abstract new (...args: never[]) => unknown;
const require = createRequire(import.meta.url);
// The classes TypeORM's drivers instantiate (neither package's typings declare them as values).
const BetterSqlite3 = require('better-sqlite3') as Class;
const mysql = require('mysql2') as { Pool: Class; PoolConnection: Class };

const INTERNAL_FIELD = { sqlite: 'databaseConnection', mysql: 'pool' } as const;

function useDataSource(kind: DatabaseKind): { dataSource: DataSource } {
  const fixture = {} as { dataSource: DataSource; database?: TestDatabase };
  beforeAll(async () => {
    if (kind === 'mysql') fixture.database = await createTestDatabase('mysql');
    fixture.dataSource = await new DataSource(
      kind === 'sqlite'
        ? { type: 'better-sqlite3', database: ':memory:' }
        : { type: 'mysql', url: fixture.database!.url, poolSize: 2 },
    ).initialize();
  });
  afterAll(async () => {
    if (fixture.dataSource?.isInitialized) await fixture.dataSource.destroy();
    await fixture.database?.drop();
  });
  return fixture;
}

describe.each(databasesUnderTest())("TypeORM's %s driver, as the SQL runner reads it", (kind) => {
  const fixture = useDataSource(kind);

  it('names the adapter when the driver no longer has the field', () => {
    const driver = fixture.dataSource.driver as unknown as Record<string, unknown>;
    const saved = driver[INTERNAL_FIELD[kind]];
    driver[INTERNAL_FIELD[kind]] = undefined;
    try {
      expect(() => nativeConnection(fixture.dataSource)).toThrow(/typeorm-native\.ts/);
    } finally {
      driver[INTERNAL_FIELD[kind]] = saved;
    }
  });

  it('says the connection is not open once the DataSource is destroyed', async () => {
    await fixture.dataSource.destroy();
    expect(() => nativeConnection(fixture.dataSource)).toThrow('The database connection is not open.');
  });
});

describe('BetterSqlite3Driver.databaseConnection', () => {
  const fixture = useDataSource('sqlite');

  it('is the better-sqlite3 Database TypeORM queries through', () => {
    const native = nativeConnection(fixture.dataSource);
    expect(native).toEqual({
      kind: 'sqlite',
      database: (fixture.dataSource.driver as unknown as { databaseConnection: unknown }).databaseConnection,
    });
    expect((native as { database: unknown }).database).toBeInstanceOf(BetterSqlite3);
  });
});

describe.each(databasesUnderTest().filter((kind) => kind === 'mysql'))('MysqlDriver on %s', (kind) => {
  const fixture = useDataSource(kind);

  it('pool is the mysql2 callback Pool, and obtainMasterConnection hands out its connections', async () => {
    const native = nativeConnection(fixture.dataSource);
    expect(native.kind).toBe('mysql');
    expect((native as { pool: unknown }).pool).toBeInstanceOf(mysql.Pool);
    const connection = await acquireMysqlConnection(fixture.dataSource);
    try {
      expect(connection).toBeInstanceOf(mysql.PoolConnection);
    } finally {
      connection.release();
    }
  });
});
