import type { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';

// The one place that reaches past TypeORM's documented API: the mysql2 pool and the better-sqlite3
// connection its drivers create (`MysqlDriver.pool`, `BetterSqlite3Driver.databaseConnection`,
// declared public but typed `any` and undocumented). typeorm-native.spec.ts checks both against
// the real drivers, so an upgrade that renames or re-types them fails there, not in production.

type MysqlCallback = (error: Error | null, result: unknown) => void;

/** The part of a mysql2 callback connection used here. */
export interface MysqlConnection {
  query(sql: string, values: unknown[], callback: MysqlCallback): void;
  /** A server-side prepared statement, prepared on the connection's first use of `sql` and kept. */
  execute(sql: string, values: unknown[], callback: MysqlCallback): void;
  release(): void;
  destroy(): void;
}

/** The part of mysql2's callback pool (the one TypeORM's MySQL driver creates) used here. */
export interface MysqlPool {
  query(sql: string, values: unknown[], callback: MysqlCallback): void;
  execute(sql: string, values: unknown[], callback: MysqlCallback): void;
}

export interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number };
  /** From now on all() answers each row as an array of its values (better-sqlite3's raw mode). */
  raw(toggle: boolean): SqliteStatement;
}

/** The part of a better-sqlite3 database (TypeORM's connection) used here. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
  transaction<A extends unknown[], R>(work: (...args: A) => R): { immediate(...args: A): R };
}

export type NativeConnection = { kind: 'mysql'; pool: MysqlPool } | { kind: 'sqlite'; database: SqliteDatabase };

/**
 * The driver's own pool (MySQL) or connection (SQLite). Looked up on every call: TypeORM replaces
 * them when the DataSource is destroyed and initialized again.
 */
export function nativeConnection(dataSource: DataSource): NativeConnection {
  if (!dataSource.isInitialized) throw new Error('The database connection is not open.');
  const type = dataSource.options.type;
  const driver = dataSource.driver as unknown as { pool?: unknown; databaseConnection?: unknown };
  if (type === 'mysql') {
    const pool = driver.pool as MysqlPool | undefined;
    if (typeof pool?.query === 'function') return { kind: 'mysql', pool };
  } else if (type === 'better-sqlite3') {
    const database = driver.databaseConnection as SqliteDatabase | undefined;
    if (typeof database?.prepare === 'function') return { kind: 'sqlite', database };
  } else {
    throw new Error(`The SQL runner supports mysql and better-sqlite3, not ${type}.`);
  }
  throw new Error(
    `TypeORM's ${type} driver no longer exposes its ${type === 'mysql' ? 'pool' : 'databaseConnection'}; ` +
      'see src/database/typeorm-native.ts.',
  );
}

/**
 * A connection of its own from TypeORM's MySQL pool (public API: the one its query runners use;
 * it also attaches the error listener TypeORM puts on every pooled connection).
 */
export async function acquireMysqlConnection(dataSource: DataSource): Promise<MysqlConnection> {
  return (await (dataSource.driver as MysqlDriver).obtainMasterConnection()) as MysqlConnection;
}
