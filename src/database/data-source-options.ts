import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app.config.js';
import { DocumentHistory } from '../documents/entities/document-history.entity.js';
import { DocumentType } from '../documents/entities/document-type.entity.js';
import { Document } from '../documents/entities/document.entity.js';
import { Project } from '../documents/entities/project.entity.js';
import { NotificationCount } from '../notifications/entities/notification-count.entity.js';
import { Notification } from '../notifications/entities/notification.entity.js';
import { Role } from '../users/entities/role.entity.js';
import { User } from '../users/entities/user.entity.js';
import { InitialSchema1763800000000 } from './migrations/1763800000000-InitialSchema.js';
import { NotificationCounts1763800000001 } from './migrations/1763800000001-NotificationCounts.js';
import { DefaultRoles1763800000002 } from './migrations/1763800000002-DefaultRoles.js';
import { NotificationCountsRevision1763800000003 } from './migrations/1763800000003-NotificationCountsRevision.js';

export const ENTITIES = [User, Role, Project, DocumentType, Document, DocumentHistory, Notification, NotificationCount];
export const MIGRATIONS = [
  InitialSchema1763800000000,
  NotificationCounts1763800000001,
  DefaultRoles1763800000002,
  NotificationCountsRevision1763800000003,
];

/**
 * The one place that turns configuration into TypeORM options; the app module, the
 * migration CLI (ormconfig.ts), the seed and the user CLI all use it.
 */
export function buildDataSourceOptions(config: Pick<AppConfig, 'database' | 'databaseTimeoutMs'>): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
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
