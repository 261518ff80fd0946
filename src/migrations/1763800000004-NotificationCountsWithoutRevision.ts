import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

type Dialect = 'mysql' | 'sqlite';

/**
 * Removes notification_counts.revision (added by NotificationCountsRevision for a deep-page cache
 * that is gone) and puts back the three count triggers exactly as NotificationCounts wrote them.
 * On SQLite the table is rebuilt instead, which also gives isRead and total the types the entity
 * declares (boolean, bigint; SQLite stores the same integers either way). Trigger DDL commits
 * implicitly on MySQL, so run migrations with other notification writers stopped.
 */
export class NotificationCountsWithoutRevision1763800000004 implements MigrationInterface {
  name = 'NotificationCountsWithoutRevision1763800000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = dialectOf(queryRunner);
    await dropCountTriggers(queryRunner);
    if (dialect === 'mysql') {
      await queryRunner.query('ALTER TABLE notification_counts DROP COLUMN revision');
    } else {
      await rebuildSqliteCounts(queryRunner, 'isRead boolean NOT NULL, total bigint NOT NULL', false);
    }
    await createCountTriggers(queryRunner, dialect, false);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const dialect = dialectOf(queryRunner);
    await dropCountTriggers(queryRunner);
    if (dialect === 'mysql') {
      await queryRunner.query('ALTER TABLE notification_counts ADD COLUMN revision bigint NOT NULL DEFAULT 0');
    } else {
      await rebuildSqliteCounts(
        queryRunner,
        'isRead integer NOT NULL, total integer NOT NULL, revision integer NOT NULL DEFAULT 0',
        true,
      );
    }
    await createCountTriggers(queryRunner, dialect, true);
  }
}

function dialectOf(queryRunner: QueryRunner): Dialect {
  return isMysql(queryRunner) ? 'mysql' : 'sqlite';
}

async function dropCountTriggers(queryRunner: QueryRunner): Promise<void> {
  for (const trigger of ['insert', 'delete', 'update']) {
    await queryRunner.query(`DROP TRIGGER IF EXISTS trg_notifications_count_${trigger}`);
  }
}

/** SQLite cannot change a column's type in place: copy the rows into a table of the new shape. */
async function rebuildSqliteCounts(queryRunner: QueryRunner, columns: string, withRevision: boolean): Promise<void> {
  await queryRunner.query(
    `CREATE TABLE temporary_notification_counts (
        userId varchar(36) NOT NULL,
        status varchar(16) NOT NULL,
        notificationType varchar(16) NOT NULL,
        ${columns},
        PRIMARY KEY (userId, status, notificationType, isRead)
      )`,
  );
  const copied = 'userId, status, notificationType, isRead, total';
  await queryRunner.query(
    `INSERT INTO temporary_notification_counts (${copied}${withRevision ? ', revision' : ''})
     SELECT ${copied}${withRevision ? ', 0' : ''} FROM notification_counts`,
  );
  await queryRunner.query('DROP TABLE notification_counts');
  await queryRunner.query('ALTER TABLE temporary_notification_counts RENAME TO notification_counts');
}

/** The count triggers: without the revision bump as NotificationCounts wrote them, with it as NotificationCountsRevision did. */
async function createCountTriggers(queryRunner: QueryRunner, dialect: Dialect, withRevision: boolean): Promise<void> {
  const bump = withRevision ? ', revision = revision + 1' : '';
  const key = (row: 'NEW' | 'OLD') =>
    `${row}.userId, ${row}.status, ${row}.notificationType, (CASE WHEN ${row}.readAt IS NULL THEN 0 ELSE 1 END)`;
  const columns = `userId, status, notificationType, isRead, total${withRevision ? ', revision' : ''}`;
  const values = `${key('NEW')}, 1${withRevision ? ', 1' : ''}`;
  const increment =
    dialect === 'mysql'
      ? `INSERT INTO notification_counts (${columns}) VALUES (${values})
           ON DUPLICATE KEY UPDATE total = total + 1${bump};`
      : `INSERT INTO notification_counts (${columns}) VALUES (${values})
           ON CONFLICT (userId, status, notificationType, isRead) DO UPDATE SET total = total + 1${bump};`;
  const decrement = `UPDATE notification_counts SET total = total - 1${bump}
           WHERE userId = OLD.userId AND status = OLD.status AND notificationType = OLD.notificationType
             AND isRead = (CASE WHEN OLD.readAt IS NULL THEN 0 ELSE 1 END);`;

  await queryRunner.query(
    `CREATE TRIGGER trg_notifications_count_insert AFTER INSERT ON notifications FOR EACH ROW BEGIN ${increment} END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER trg_notifications_count_delete AFTER DELETE ON notifications FOR EACH ROW BEGIN ${decrement} END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER trg_notifications_count_update AFTER UPDATE ON notifications FOR EACH ROW BEGIN ${decrement} ${increment} END`,
  );
}
