import { NotificationPreference } from './notifications/entities/notification-preference.entity.js';
import { NotificationStreamTicket } from './notifications/entities/notification-stream-ticket.entity.js';
import type { DataSourceOptions } from 'typeorm';
import { AuditEvent } from './audit/entities/audit-event.entity.js';
import { Comment } from './comments/entities/comment.entity.js';
import { DocumentContent } from './content/entities/document-content.entity.js';
import { DocumentPreview } from './content/entities/document-preview.entity.js';
import { IdempotencyKey } from './common/idempotency/idempotency-key.entity.js';
import type { DatabaseConfig } from './config/configuration.js';
import { buildDataSourceOptions, matchMysqlServer } from './database/data-source-options.js';
import { DocumentHistory } from './documents/entities/document-history.entity.js';
import { DocumentParticipant } from './documents/entities/document-participant.entity.js';
import { DocumentType } from './document-types/entities/document-type.entity.js';
import { DocumentVersion } from './documents/entities/document-version.entity.js';
import { Document } from './documents/entities/document.entity.js';
import { ProjectMember } from './projects/entities/project-member.entity.js';
import { Project } from './projects/entities/project.entity.js';
import { OutboxEvent } from './events/entities/outbox-event.entity.js';
import { Job } from './jobs/entities/job.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { NotificationCount } from './notifications/entities/notification-count.entity.js';
import { Notification } from './notifications/entities/notification.entity.js';
import { Role } from './users/entities/role.entity.js';
import { PendingFile } from './storage/entities/pending-file.entity.js';
import { UserRole } from './users/entities/user-role.entity.js';
import { User } from './users/entities/user.entity.js';

/**
 * Composition: the one list of every feature's entities and the migrations that create their
 * tables. The database core (src/database) knows neither; the app module, the migration CLI
 * (ormconfig.ts), the seed, the CLIs and the bench take them from here.
 */
export const ENTITIES = [
  User,
  Role,
  UserRole,
  Project,
  ProjectMember,
  DocumentType,
  Document,
  DocumentHistory,
  DocumentVersion,
  DocumentParticipant,
  Notification,
  NotificationCount,
  OutboxEvent,
  AuditEvent,
  NotificationPreference,
  NotificationStreamTicket,
  Comment,
  PendingFile,
  IdempotencyKey,
  Job,
  DocumentContent,
  DocumentPreview,
];
export { MIGRATIONS };

export const SCHEMA = { entities: ENTITIES, migrations: MIGRATIONS };

/** TypeORM options for this application's schema on the configured database. */
export function appDataSourceOptions(config: Pick<DatabaseConfig, 'connection' | 'timeoutMs'>): DataSourceOptions {
  return { ...buildDataSourceOptions(config), ...SCHEMA };
}

/**
 * For the migration CLI and the schema test: the application's options, told whether the MySQL
 * server is MariaDB, so that `migration:generate` compares the entities with the schema correctly.
 */
export function migrationDataSourceOptions(
  config: Pick<DatabaseConfig, 'connection' | 'timeoutMs'>,
): Promise<DataSourceOptions> {
  return matchMysqlServer(appDataSourceOptions(config));
}
