import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';

/** The part of mysql2's callback pool (the one TypeORM's MySQL driver creates) used here. */
interface MysqlPool {
  query(sql: string, values: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
}

interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
}

/** The part of a better-sqlite3 database (TypeORM's connection) used here. */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}

/**
 * Runs the hot paths' hand-written SELECTs on the pool (MySQL) or connection (SQLite) that
 * TypeORM already owns and configures. It skips what TypeORM adds around every query (a
 * QueryRunner, logging and event broadcast, a promise wrapper that captures a stack trace,
 * a copy of the rows), which on the notification list costs more CPU than the query.
 * Reads only: writes and transactions stay on TypeORM. Errors are the driver's own, which
 * the error mapping recognises by code (a lost database is still a 503).
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

function selectMysql<T>(pool: MysqlPool, sql: string, parameters: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) => {
    pool.query(sql, parameters, (error, rows) => (error ? reject(error) : resolve(rows as T[])));
  });
}

/** better-sqlite3 binds no booleans; TypeORM stores them as 0/1. */
function sqliteValues(parameters: unknown[]): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}
