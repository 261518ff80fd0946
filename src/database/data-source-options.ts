import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/configuration.js';
/**
 * Prepared statements a pooled MySQL connection keeps (least recently used closed first): the
 * runner prepares only its hottest reads, a statement per filter combination (SelectOptions).
 */
export const MYSQL_PREPARED_PER_CONNECTION = 128;

/**
 * The one place that turns configuration into TypeORM connection options. The schema (entities,
 * migrations) is not known here: the composition on top (src/data-source.ts) adds it.
 */
/** better-sqlite3's busy wait blocks the event loop; Transactions.run retries SQLITE_BUSY asynchronously. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 50;

export function buildDataSourceOptions(
  config: Pick<DatabaseConfig, 'connection' | 'timeoutMs'> & { sqliteBusyTimeoutMs?: number },
): DataSourceOptions {
  const common = {
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  } as const;

  const connection = config.connection;
  if (connection.type === 'sqlite') {
    if (connection.path !== ':memory:') mkdirSync(dirname(connection.path), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: connection.path,
      enableWAL: true,
      // A short synchronous wait for a concurrent writer; longer waits are Transactions.run's retries.
      timeout: config.sqliteBusyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
    };
  }

  const { host, port, username, password, database } = connection;
  return {
    ...common,
    type: 'mysql',
    host,
    port,
    username,
    password,
    database,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    connectTimeout: config.timeoutMs,
    // SqlRunner.writeIfChanged sends a change's whole transaction as one batch (one round trip
    // instead of five). Every value is bound by the driver, never spliced into the text.
    multipleStatements: true,
    poolSize: 10,
    extra: {
      // Fail fast when the pool is exhausted or the server is gone instead of queueing forever.
      waitForConnections: true,
      queueLimit: 500,
      enableKeepAlive: true,
      // The SQL runner's prepared statements, per connection (least recently used closed first):
      // the server counts them against max_prepared_stmt_count (16,382 by default) across all
      // connections of all instances, so 10 connections keep at most 1,280 per instance.
      maxPreparedStatements: MYSQL_PREPARED_PER_CONNECTION,
    },
  };
}

/**
 * The same options, with TypeORM's type set to 'mariadb' when the MySQL server is MariaDB. TypeORM
 * reads MariaDB's information_schema right only under that type (as 'mysql' it takes a nullable
 * column's default for the string 'NULL'), so the schema tooling (migration CLI, schema test) uses
 * this. The service keeps 'mysql' on both: it never reads the schema.
 */
export async function matchMysqlServer(options: DataSourceOptions): Promise<DataSourceOptions> {
  if (options.type !== 'mysql') return options;
  const connection = await createConnection({
    host: options.host,
    port: options.port,
    user: options.username,
    password: options.password,
    connectTimeout: options.connectTimeout,
  });
  try {
    const [rows] = await connection.query('SELECT VERSION() AS version');
    const [{ version }] = rows as { version: string }[];
    return /mariadb/i.test(version) ? { ...options, type: 'mariadb' } : options;
  } finally {
    await connection.end();
  }
}
