import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/configuration.js';

/** better-sqlite3's busy wait blocks the event loop; Transactions.run retries SQLITE_BUSY asynchronously. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 50;

/**
 * The one place that turns configuration into TypeORM connection options. The schema (entities,
 * migrations) is not known here: the composition on top (src/data-source.ts) adds it.
 */
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
    poolSize: 10,
    extra: {
      // Fail fast when the pool is exhausted or the server is gone instead of queueing forever.
      waitForConnections: true,
      queueLimit: 500,
      enableKeepAlive: true,
      // No call-site stack captured on every query: errors are logged without stacks anyway.
      trace: false,
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
