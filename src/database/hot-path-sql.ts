import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource, type EntityMetadata } from 'typeorm';
import type { Driver } from 'typeorm/driver/Driver.js';

type MysqlCallback = (error: Error | null, rows: unknown) => void;

/** The part of a mysql2 callback connection used here. */
interface MysqlConnection {
  query(sql: string, values: unknown[], callback: MysqlCallback): void;
  release(): void;
  destroy(): void;
}

/** The part of mysql2's callback pool (the one TypeORM's MySQL driver creates) used here. */
interface MysqlPool {
  query(sql: string, values: unknown[], callback: MysqlCallback): void;
  getConnection(callback: (error: Error | null, connection: MysqlConnection) => void): void;
}

/** Statements inside one transaction. */
export interface SqlTransaction {
  select<T>(sql: string, parameters: unknown[]): Promise<T[]>;
  /** Runs a write and answers how many rows it changed. */
  execute(sql: string, parameters: unknown[]): Promise<number>;
}

interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 database (TypeORM's connection) used here. */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
  transaction<A extends unknown[], R>(work: (...args: A) => R): { immediate(...args: A): R };
}

/** One statement and its parameters. */
export type SqlStatement = [sql: string, parameters: unknown[]];

/**
 * Runs the hot paths' hand-written SELECTs on the pool (MySQL) or connection (SQLite) that
 * TypeORM already owns and configures. It skips what TypeORM adds around every query (a
 * QueryRunner, logging and event broadcast, a promise wrapper that captures a stack trace,
 * a copy of the rows), which on the notification list costs more CPU than the query.
 * On MySQL a transaction is START TRANSACTION ... COMMIT on one pooled connection; on SQLite it
 * is TypeORM's own transaction (one connection, which TypeORM serialises). Errors are the
 * driver's own, which the error mapping recognises by code (a lost database is still a 503).
 */
@Injectable()
export class HotPathSql {
  /** Prepared statements per SQLite connection: a handful of shapes (one per filter combination). */
  private readonly statements = new WeakMap<SqliteDatabase, LRUCache<string, SqliteStatement>>();

  constructor(private readonly dataSource: DataSource) {}

  select<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    // Looked up on every call: TypeORM may replace its pool or connection (destroy, initialize).
    const driver = this.dataSource.driver as unknown as { pool?: MysqlPool; databaseConnection?: SqliteDatabase };
    const type = this.dataSource.options.type;
    if (type === 'mysql' && driver.pool) return selectMysql<T>(driver.pool, sql, parameters);
    if (type === 'better-sqlite3' && driver.databaseConnection) {
      try {
        return Promise.resolve(this.prepared(driver.databaseConnection, sql).all(...sqliteValues(parameters)) as T[]);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.dataSource.query<T[]>(sql, parameters);
  }

  /** Commits when `work` resolves, rolls back when it throws. */
  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    const driver = this.dataSource.driver as unknown as { pool?: MysqlPool };
    if (this.dataSource.options.type === 'mysql' && driver.pool) return mysqlTransaction(driver.pool, work);
    return this.dataSource.transaction((manager) => {
      const runner = manager.queryRunner!;
      return work({
        select: (sql, parameters) => runner.query(sql, parameters),
        execute: async (sql, parameters) => (await runner.query(sql, parameters, true)).affected ?? 0,
      });
    });
  }

  /**
   * Runs `write`; if it changed exactly one row, runs `then` too, all in one transaction. Answers
   * whether `write` hit its row (nothing is written when it did not). On SQLite both statements
   * run inside one synchronous better-sqlite3 transaction (BEGIN IMMEDIATE ... COMMIT), so no other
   * statement on the shared connection can interleave; if a TypeORM transaction is already open
   * on that connection, it goes through TypeORM instead.
   */
  writeIfChanged(write: SqlStatement, then: SqlStatement): Promise<boolean> {
    const driver = this.dataSource.driver as unknown as { databaseConnection?: SqliteDatabase };
    const database = driver.databaseConnection;
    if (this.dataSource.options.type === 'better-sqlite3' && database && !database.inTransaction) {
      try {
        const changed = database
          .transaction(() => {
            if (this.prepared(database, write[0]).run(...sqliteValues(write[1])).changes !== 1) return false;
            this.prepared(database, then[0]).run(...sqliteValues(then[1]));
            return true;
          })
          .immediate();
        return Promise.resolve(changed);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.transaction(async (tx) => {
      if ((await tx.execute(...write)) !== 1) return false;
      await tx.execute(...then);
      return true;
    });
  }

  private prepared(database: SqliteDatabase, sql: string): SqliteStatement {
    let cache = this.statements.get(database);
    if (!cache) {
      cache = new LRUCache<string, SqliteStatement>({ max: 256 });
      this.statements.set(database, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }
}

function selectMysql<T>(pool: MysqlPool | MysqlConnection, sql: string, parameters: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) => {
    pool.query(sql, parameters, (error, rows) => (error ? reject(error) : resolve(rows as T[])));
  });
}

async function mysqlTransaction<T>(pool: MysqlPool, work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  const connection = await new Promise<MysqlConnection>((resolve, reject) => {
    pool.getConnection((error, acquired) => (error ? reject(error) : resolve(acquired)));
  });
  try {
    await selectMysql(connection, 'START TRANSACTION', []);
    const result = await work({
      select: (sql, parameters) => selectMysql(connection, sql, parameters),
      execute: async (sql, parameters) => {
        const header = (await selectMysql(connection, sql, parameters)) as unknown as { affectedRows: number };
        return header.affectedRows;
      },
    });
    await selectMysql(connection, 'COMMIT', []);
    connection.release();
    return result;
  } catch (error) {
    try {
      await selectMysql(connection, 'ROLLBACK', []);
      connection.release();
    } catch {
      // The connection itself failed (the server went away): never hand it out again.
      connection.destroy();
    }
    throw error;
  }
}

/** better-sqlite3 binds no booleans; TypeORM stores them as 0/1. */
function sqliteValues(parameters: unknown[]): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

type RowMapper = (row: Record<string, unknown>, driver: Driver) => unknown;

/** One mapper per entity metadata (rebuilt if TypeORM builds new metadata, e.g. after re-initializing). */
const rowMappers = new WeakMap<EntityMetadata, RowMapper>();

/**
 * An entity from a raw row of its table, converted by the driver as TypeORM's own hydration does.
 * The column list is resolved once per entity: this runs for every row of every list page.
 */
export function entityFromRow(metadata: EntityMetadata, driver: Driver, row: Record<string, unknown>): unknown {
  let mapper = rowMappers.get(metadata);
  if (!mapper) {
    const columns = metadata.columns.map((column) => ({
      column,
      name: column.databaseName,
      property: column.propertyName,
    }));
    mapper = (raw, rowDriver) => {
      const entity = metadata.create() as Record<string, unknown>;
      for (const { column, name, property } of columns) {
        const value = raw[name];
        entity[property] = value === null || value === undefined ? null : rowDriver.prepareHydratedValue(value, column);
      }
      return entity;
    };
    rowMappers.set(metadata, mapper);
  }
  return mapper(row, driver);
}

/** A property's value in the form the driver stores its column (JSON as text, SQLite dates as UTC text). */
export function persistedValue(metadata: EntityMetadata, driver: Driver, property: string, value: unknown): unknown {
  return driver.preparePersistentValue(value, metadata.findColumnWithPropertyName(property)!);
}
