import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import {
  createCanonicalFormTriggers,
  dropCanonicalFormTriggers,
  type CanonicalColumns,
} from './sqlite-canonical-forms.js';

/**
 * SQLite compares TEXT byte by byte, so keyset pagination and ORDER BY are only right when every
 * row stores a value in one form. These are the forms TypeORM writes (DateUtils, better-sqlite3):
 *  - timestamps: UTC 'YYYY-MM-DD HH:MM:SS.SSS' (not '…T…Z', not datetime('now')'s 'YYYY-MM-DD HH:MM:SS');
 *  - ids and references to them: lower-case UUIDs, 36 characters.
 * BEFORE INSERT / BEFORE UPDATE OF triggers refuse anything else from any writer. (TypeORM does
 * not read triggers, so the entities still describe the tables exactly; CHECK constraints would
 * have to be repeated in every entity and cost a rebuild of each table.)
 *
 * notifications also refuses an INSERT whose id already exists: SQLite's REPLACE (INSERT OR
 * REPLACE, REPLACE INTO, upserts' conflict paths) deletes the old row without firing delete triggers
 * unless the writer turned recursive_triggers on, which would leave notification_counts too high.
 * BEFORE triggers run before conflict resolution, so they see the existing row. Update or delete
 * existing notifications instead.
 *
 * Rows already stored in another form are rewritten first (timestamps through strftime, ids
 * lower-cased); anything that cannot be stops the migration with the table and column named.
 * MySQL needs none of this: DATETIME has one form and the ids' utf8mb4_unicode_ci collation
 * compares case-insensitively in WHERE and ORDER BY alike.
 */
const TABLES: CanonicalColumns[] = [
  { table: 'roles', ids: ['id'], timestamps: [] },
  { table: 'users', ids: ['id'], timestamps: ['createdAt'] },
  { table: 'user_roles', ids: ['userId', 'roleId'], timestamps: [] },
  { table: 'projects', ids: ['id'], timestamps: ['createdAt'] },
  { table: 'document_types', ids: ['id'], timestamps: ['createdAt'] },
  {
    table: 'documents',
    ids: ['id', 'projectId', 'documentTypeId', 'uploadedBy'],
    timestamps: ['createdAt', 'updatedAt'],
  },
  { table: 'document_history', ids: ['id', 'documentId', 'changedBy'], timestamps: ['changedAt'] },
  { table: 'notifications', ids: ['id', 'userId'], timestamps: ['createdAt'], nullableTimestamps: ['readAt'] },
];

export class SqliteCanonicalValues1763800000008 implements MigrationInterface {
  name = 'SqliteCanonicalValues1763800000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) return;

    for (const columns of TABLES) await createCanonicalFormTriggers(queryRunner, columns);

    const replaced =
      'notifications: a notification with this id already exists; update or delete it instead ' +
      '(SQLite REPLACE and upserts would bypass the count triggers)';
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_unique_insert BEFORE INSERT ON notifications FOR EACH ROW
       WHEN EXISTS (SELECT 1 FROM notifications WHERE id = NEW.id) BEGIN SELECT RAISE(ABORT, '${replaced}'); END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_unique_update BEFORE UPDATE OF id ON notifications FOR EACH ROW
       WHEN NEW.id IS NOT OLD.id AND EXISTS (SELECT 1 FROM notifications WHERE id = NEW.id)
       BEGIN SELECT RAISE(ABORT, '${replaced}'); END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_unique_update');
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_unique_insert');
    for (const { table } of TABLES.toReversed()) await dropCanonicalFormTriggers(queryRunner, table);
  }
}
