import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource, QueryFailedError, type EntityMetadata, type EntityTarget } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import {
  acquireMysqlConnection,
  nativeConnection,
  type MysqlConnection,
  type MysqlPool,
  type SqliteDatabase,
  type SqliteStatement,
} from './typeorm-native.js';

/** One statement and its parameters. */
export type SqlStatement = [sql: string, parameters: unknown[]];

/**
 * How a read runs on MySQL. `prepared`: as a server-side prepared statement (runPrepared), for hot
 * statements of a fixed shape with no derived table. Text otherwise: MariaDB 10.11 ran the
 * notification list's deferred join (a derived table with `LIMIT ?`) prepared at ~2 ms where the
 * same text took ~0.3 ms, with the same plan and rows read (slow log), and the cursor fell from
 * ~2,000 to ~320 req/s; other statements were not measured one by one. SQLite prepares every
 * statement anyway.
 */
export interface SelectOptions {
  prepared?: boolean;
}

/** A read of a hot statement of a fixed shape with no derived table (see SelectOptions). */
export const PREPARED: SelectOptions = { prepared: true };

/** Statements inside one transaction. */
export interface SqlTransaction {
  select<T>(sql: string, parameters: unknown[]): Promise<T[]>;
  /** Runs a write and answers how many rows it changed. */
  execute(sql: string, parameters: unknown[]): Promise<number>;
}

/**
 * Runs the feature repositories' hand-written statements on the pool (MySQL) or connection
 * (SQLite) TypeORM already owns and configures. It skips what TypeORM adds around every query (a
 * QueryRunner, logging and event broadcast, a promise wrapper that captures a stack trace, a copy
 * of the rows), which on the notification list, the token check and the document update costs
 * more CPU than the query. On MySQL the hot reads run as prepared statements (SelectOptions), and
 * a transaction is START TRANSACTION ... COMMIT on one pooled connection; on SQLite it is TypeORM's
 * own transaction on the one connection, queued behind any other the runner has open (TypeORM
 * would nest a concurrent one as a savepoint of the first, so a rollback of either would undo
 * both). Errors are the driver's own, which the error mapping
 * recognises by code (a lost database is still a 503).
 */
@Injectable()
export class SqlRunner {
  /** Prepared statements per SQLite connection: a handful of shapes (one per filter combination). */
  private readonly statements = new WeakMap<SqliteDatabase, LRUCache<string, SqliteStatement>>();
  /** The same for selectTuples: a raw statement answers arrays, so it is a statement of its own. */
  private readonly rawStatements = new WeakMap<SqliteDatabase, LRUCache<string, SqliteStatement>>();
  /** SQLite: the end of the last queued transaction. */
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  select<T>(sql: string, parameters: unknown[], options: SelectOptions = {}): Promise<T[]> {
    try {
      const native = nativeConnection(this.dataSource);
      if (native.kind === 'mysql') return (options.prepared ? runPrepared : run)<T[]>(native.pool, sql, parameters);
      return Promise.resolve(this.prepared(native.database, sql).all(...sqliteValues(parameters)) as T[]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Rows as arrays, values in select-list order, for hot pages that map every row anyway.
   * better-sqlite3 builds an object row through V8's API one property at a time, which costs more
   * than the query on a 20-row page; a raw row is one array, and the caller's object literal has
   * one fixed shape (bench: ~25 µs less per notification page). mysql2's generated row parser
   * makes objects cheaply, so on MySQL their values are taken in field order (its per-query
   * rowsAsArray option costs more than it saves).
   */
  selectTuples<T extends readonly unknown[]>(
    sql: string,
    parameters: unknown[],
    options: SelectOptions = {},
  ): Promise<T[]> {
    try {
      const native = nativeConnection(this.dataSource);
      if (native.kind === 'mysql') {
        return (options.prepared ? runPrepared : run)<Record<string, unknown>[]>(native.pool, sql, parameters).then(
          (rows) => rows.map((row) => Object.values(row) as unknown as T),
        );
      }
      return Promise.resolve(this.prepared(native.database, sql, true).all(...sqliteValues(parameters)) as T[]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Commits when `work` resolves, rolls back when it throws. `readCommitted` (MySQL/MariaDB): the
   * transaction's locking reads lock the rows they find and no gaps, so concurrent INSERTs into
   * the range never wait on it (SQLite: one writer at a time anyway).
   * `work` runs its statements through `tx` only: on SQLite a transaction() called from inside
   * another one would wait behind it forever. (No AsyncLocalStorage tells them apart: it makes
   * Node 20 and 22 run promise hooks on every promise, and its context leaked into timers set
   * inside a transaction, so the delivery pollers' transactions skipped the queue.)
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options: { readCommitted?: boolean } = {}): Promise<T> {
    if (this.dataSource.options.type === 'mysql') return this.mysqlTransaction(work, options.readCommitted ?? false);
    // TypeORM opens and ends the transaction; the statements in it run on the same (only)
    // connection through this runner's prepared statements (TypeORM's query() prepares each anew).
    const begin = () =>
      this.dataSource.transaction(() => {
        const database = sqliteDatabase(this.dataSource);
        return work({
          select: (sql, parameters) => settle(() => this.prepared(database, sql).all(...sqliteValues(parameters))),
          execute: (sql, parameters) =>
            settle(() => this.prepared(database, sql).run(...sqliteValues(parameters)).changes),
        });
      });
    const result = this.sqliteQueue.then(begin);
    this.sqliteQueue = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `write`; if it changed exactly one row, runs `then` too (single-row INSERT ... VALUES
   * statements, in order), all in one transaction. Answers whether `write` hit its row (nothing is
   * written when it did not). On MySQL the whole transaction is one batch, one round trip:
   * START TRANSACTION; write; each INSERT as INSERT ... SELECT ... WHERE ROW_COUNT() = 1 (the
   * previous statement's count: the write's, then each INSERT's); COMMIT. On SQLite the statements
   * run inside one synchronous better-sqlite3 transaction (BEGIN IMMEDIATE ... COMMIT), so no other
   * statement on the shared connection can interleave; if a TypeORM transaction is already open on
   * that connection, it goes through TypeORM instead.
   */
  writeIfChanged(write: SqlStatement, ...then: SqlStatement[]): Promise<boolean> {
    const native = this.dataSource.options.type === 'better-sqlite3' ? nativeConnection(this.dataSource) : undefined;
    if (native?.kind === 'sqlite' && !native.database.inTransaction) {
      const database = native.database;
      try {
        const changed = database
          .transaction(() => {
            if (this.prepared(database, write[0]).run(...sqliteValues(write[1])).changes !== 1) return false;
            for (const [sql, parameters] of then) this.prepared(database, sql).run(...sqliteValues(parameters));
            return true;
          })
          .immediate();
        return Promise.resolve(changed);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.dataSource.options.type === 'mysql') return this.mysqlBatch(write, then);
    return this.transaction(async (tx) => {
      if ((await tx.execute(...write)) !== 1) return false;
      for (const statement of then) await tx.execute(...statement);
      return true;
    });
  }

  private async mysqlBatch(write: SqlStatement, then: SqlStatement[]): Promise<boolean> {
    const sql = ['START TRANSACTION', write[0], ...then.map(([insert]) => afterOneRow(insert)), 'COMMIT'].join(';\n');
    const parameters = [write[1], ...then.map((statement) => statement[1])].flat();
    const connection = await acquireMysqlConnection(this.dataSource);
    try {
      const results = await run<{ affectedRows: number }[]>(connection, sql, parameters);
      connection.release();
      return results[1].affectedRows === 1;
    } catch (error) {
      // A statement failed mid-batch: the server ran none after it, and the transaction is open.
      try {
        await run(connection, 'ROLLBACK', []);
        connection.release();
      } catch {
        connection.destroy();
      }
      throw error;
    }
  }

  private async mysqlTransaction<T>(work: (tx: SqlTransaction) => Promise<T>, readCommitted: boolean): Promise<T> {
    const connection = await acquireMysqlConnection(this.dataSource);
    try {
      // Applies to the next transaction on this connection only.
      if (readCommitted) await run(connection, 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED', []);
      await run(connection, 'START TRANSACTION', []);
      const result = await work({
        select: (sql, parameters) => run(connection, sql, parameters),
        execute: async (sql, parameters) =>
          (await run<{ affectedRows: number }>(connection, sql, parameters)).affectedRows,
      });
      await run(connection, 'COMMIT', []);
      connection.release();
      return result;
    } catch (error) {
      try {
        await run(connection, 'ROLLBACK', []);
        connection.release();
      } catch {
        // The connection itself failed (the server went away): never hand it out again.
        connection.destroy();
      }
      throw error;
    }
  }

  private prepared(database: SqliteDatabase, sql: string, raw = false): SqliteStatement {
    const caches = raw ? this.rawStatements : this.statements;
    let cache = caches.get(database);
    if (!cache) {
      cache = new LRUCache<string, SqliteStatement>({ max: 256 });
      caches.set(database, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = raw ? database.prepare(sql).raw(true) : database.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }
}

/**
 * A statement as text (mysql2 splices the escaped values in). mysql2's callback API: its promise
 * wrapper captures a stack trace per query.
 */
function run<T>(target: MysqlPool | MysqlConnection, sql: string, parameters: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => {
    target.query(sql, parameters, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/**
 * A server-side prepared statement (binary protocol), prepared once per pooled connection and kept
 * (up to MYSQL_PREPARED_PER_CONNECTION, data-source-options.ts): the server does not parse the
 * text again, and the client neither escapes values into text nor parses text rows. On the bench's
 * notification page alone: ~30 µs less MariaDB CPU and ~45 µs less Node CPU per query.
 */
function runPrepared<T>(target: MysqlPool | MysqlConnection, sql: string, parameters: unknown[]): Promise<T> {
  // The text protocol sent an undefined value as NULL; execute() refuses it.
  const values = parameters.includes(undefined) ? parameters.map((value) => value ?? null) : parameters;
  return new Promise((resolve, reject) => {
    target.execute(sql, values, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/**
 * A single-row `INSERT INTO t (columns) VALUES (?, ...)` that inserts only when the statement
 * before it in the batch changed exactly one row (MySQL/MariaDB: FROM DUAL, ROW_COUNT()).
 */
export function afterOneRow(insert: string): string {
  const match = /^INSERT INTO (\w+ \([\w, ]+\)) VALUES \(([?, ]+)\)$/.exec(insert);
  if (!match) throw new Error(`Not a single-row INSERT ... VALUES with placeholders: ${insert.slice(0, 80)}`);
  return `INSERT INTO ${match[1]} SELECT ${match[2]} FROM DUAL WHERE ROW_COUNT() = 1`;
}

/** A synchronous call's value or error as a promise (callers await every statement alike). */
function settle<T>(call: () => unknown): Promise<T> {
  try {
    return Promise.resolve(call() as T);
  } catch (error) {
    return Promise.reject(error);
  }
}

function sqliteDatabase(dataSource: DataSource): SqliteDatabase {
  const native = nativeConnection(dataSource);
  if (native.kind !== 'sqlite') throw new Error('Not a SQLite connection.');
  return native.database;
}

/** better-sqlite3 binds no booleans; TypeORM stores them as 0/1. */
function sqliteValues(parameters: unknown[]): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

/** A stored DATETIME(3) text ('YYYY-MM-DD HH:MM:SS.mmm', UTC) in the API's ISO form ('…T…Z'). */
export function isoFromStored(stored: string): string {
  return `${stored.slice(0, 10)}T${stored.slice(11)}Z`;
}

/**
 * A DATETIME(3) as a driver answers it (mysql2: a Date, read in the pool's UTC; better-sqlite3:
 * the stored UTC text 'YYYY-MM-DD HH:MM:SS[.mmm]') as a Date.
 */
export function dateFromStored(stored: unknown): Date {
  return stored instanceof Date ? stored : new Date(isoFromStored(String(stored)));
}

/** MySQL/MariaDB chose this transaction as a deadlock's victim and rolled it back: it may be run again. */
export function isDeadlock(error: unknown): boolean {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  return (driverError as { code?: unknown } | null | undefined)?.code === 'ER_LOCK_DEADLOCK';
}

/** A unique index refused the row (MySQL/MariaDB or SQLite), from TypeORM or from the runner. */
export function isUniqueViolation(error: unknown): boolean {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  const code = (driverError as { code?: unknown } | null | undefined)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Row conversion for one entity: a raw row of its table to an entity, and a property's value to
 * its column's stored form, both by the driver's own conversions (as TypeORM's hydration and
 * persistence do: JSON as text, SQLite dates as UTC text). Metadata is resolved on first use.
 */
export class EntityRows<T> {
  private resolved?: { metadata: EntityMetadata; byProperty: Map<string, ColumnMetadata> };

  constructor(
    private readonly dataSource: DataSource,
    private readonly target: EntityTarget<T>,
  ) {}

  get metadata(): EntityMetadata {
    return this.resolve().metadata;
  }

  /** An entity from a raw row (runs for every row of every list page). */
  fromRow(row: Record<string, unknown>): T {
    const { metadata } = this.resolve();
    const driver = this.dataSource.driver;
    const entity = metadata.create() as Record<string, unknown>;
    for (const column of metadata.columns) {
      const value = row[column.databaseName];
      entity[column.propertyName] =
        value === null || value === undefined ? null : driver.prepareHydratedValue(value, column);
    }
    return entity as T;
  }

  /** One column's stored value as the entity property holds it. */
  fromColumn<K extends keyof T & string>(property: K, value: unknown): T[K] {
    const column = this.column(property);
    return (
      value === null || value === undefined ? null : this.dataSource.driver.prepareHydratedValue(value, column)
    ) as T[K];
  }

  /** A property's value in the form the driver stores its column. */
  toColumn(property: keyof T & string, value: unknown): unknown {
    return this.dataSource.driver.preparePersistentValue(value, this.column(property));
  }

  private column(property: string): ColumnMetadata {
    const { metadata, byProperty } = this.resolve();
    const column = byProperty.get(property);
    if (!column) throw new Error(`${metadata.name} has no column for ${property}`);
    return column;
  }

  private resolve() {
    if (!this.resolved) {
      const metadata = this.dataSource.getMetadata(this.target);
      const byProperty = new Map(metadata.columns.map((column) => [column.propertyName, column]));
      this.resolved = { metadata, byProperty };
    }
    return this.resolved;
  }
}
