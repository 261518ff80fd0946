import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app.config.js';
/**
 * The one place that turns configuration into TypeORM connection options. The schema (entities,
 * migrations) is not known here: the composition on top (src/data-source.ts) adds it.
 */
export function buildDataSourceOptions(config: Pick<AppConfig, 'database' | 'databaseTimeoutMs'>): DataSourceOptions {
  const common = {
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  } as const;

  if (config.database.type === 'sqlite') {
    if (config.database.path !== ':memory:') mkdirSync(dirname(config.database.path), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: config.database.path,
      enableWAL: true,
      // Wait for a concurrent writer instead of failing at once with SQLITE_BUSY.
      timeout: config.databaseTimeoutMs,
    };
  }

  const { host, port, username, password, database } = config.database;
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
    connectTimeout: config.databaseTimeoutMs,
    poolSize: 10,
    extra: {
      // Fail fast when the pool is exhausted or the server is gone instead of queueing forever.
      waitForConnections: true,
      queueLimit: 500,
      enableKeepAlive: true,
    },
  };
}
