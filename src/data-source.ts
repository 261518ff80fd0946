import { NotificationPreference } from './notifications/entities/notification-preference.entity.js';
import { NotificationStreamTicket } from './notifications/entities/notification-stream-ticket.entity.js';
import type { DataSourceOptions } from 'typeorm';
import { AuditChainHead } from './audit/entities/audit-chain-head.entity.js';
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
import { DocumentCount } from './documents/entities/document-count.entity.js';
import { NotificationCount } from './notifications/entities/notification-count.entity.js';
import { Notification } from './notifications/entities/notification.entity.js';
import { Role } from './users/entities/role.entity.js';
import { PendingFile } from './storage/entities/pending-file.entity.js';
import { JobLease } from './scheduling/entities/job-lease.entity.js';
import { LegalHoldDocument } from './legal-holds/entities/legal-hold-document.entity.js';
import { LegalHold } from './legal-holds/entities/legal-hold.entity.js';
import { RetentionApplication } from './retention/entities/retention-application.entity.js';
import { UserRole } from './users/entities/user-role.entity.js';
import { DocumentLock } from './document-locks/entities/document-lock.entity.js';
import { DocumentReview } from './reviews/entities/document-review.entity.js';
import { ReviewReviewer } from './reviews/entities/review-reviewer.entity.js';
import { ShareLink } from './shares/entities/share-link.entity.js';
import { User } from './users/entities/user.entity.js';
import { SavedSearchMatch } from './saved-searches/entities/saved-search-match.entity.js';
import { SavedSearch } from './saved-searches/entities/saved-search.entity.js';
import { WebhookDelivery } from './webhooks/entities/webhook-delivery.entity.js';
import { Webhook } from './webhooks/entities/webhook.entity.js';
import { DocumentWatch } from './watches/entities/document-watch.entity.js';
import { ProjectWatch } from './watches/entities/project-watch.entity.js';
import { DocumentFieldValue } from './custom-fields/entities/document-field-value.entity.js';
import { DocumentField } from './custom-fields/entities/document-field.entity.js';

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
  DocumentCount,
  OutboxEvent,
  AuditEvent,
  AuditChainHead,
  LegalHold,
  LegalHoldDocument,
  RetentionApplication,
  NotificationPreference,
  NotificationStreamTicket,
  Comment,
  PendingFile,
  IdempotencyKey,
  JobLease,
  DocumentReview,
  ReviewReviewer,
  DocumentLock,
  ShareLink,
  Webhook,
  WebhookDelivery,
  SavedSearch,
  SavedSearchMatch,
  DocumentWatch,
  ProjectWatch,
  Job,
  DocumentContent,
  DocumentPreview,
  DocumentField,
  DocumentFieldValue,
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
