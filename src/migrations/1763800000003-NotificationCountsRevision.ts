import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * Adds notification_counts.revision: every trigger that touches a user's count rows also bumps
 * the row's revision, so SUM(revision) over a user's rows changes with every INSERT, UPDATE or
 * DELETE of that user's notifications (count rows are never deleted, so the sum only grows).
 * The notification list uses it to know that remembered deep-page positions are still exact.
 * SQLite swaps the triggers inside the migration's transaction; on MySQL trigger DDL commits
 * implicitly, so run migrations with other notification writers stopped (compose runs them first).
 */
export class NotificationCountsRevision1763800000003 implements MigrationInterface {
  name = 'NotificationCountsRevision1763800000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await queryRunner.query(
      `ALTER TABLE notification_counts ADD COLUMN revision ${mysql ? 'bigint' : 'integer'} NOT NULL DEFAULT 0`,
    );
    await this.replaceTriggers(queryRunner, mysql, true);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await this.replaceTriggers(queryRunner, mysql, false);
    await queryRunner.query('ALTER TABLE notification_counts DROP COLUMN revision');
  }

  /** The NotificationCounts triggers, with or without the revision bump. */
  private async replaceTriggers(queryRunner: QueryRunner, mysql: boolean, withRevision: boolean): Promise<void> {
    const bump = withRevision ? ', revision = revision + 1' : '';
    const key = (row: 'NEW' | 'OLD') =>
      `${row}.userId, ${row}.status, ${row}.notificationType, (CASE WHEN ${row}.readAt IS NULL THEN 0 ELSE 1 END)`;
    const columns = `userId, status, notificationType, isRead, total${withRevision ? ', revision' : ''}`;
    const values = `${key('NEW')}, 1${withRevision ? ', 1' : ''}`;
    const increment = mysql
      ? `INSERT INTO notification_counts (${columns}) VALUES (${values})
           ON DUPLICATE KEY UPDATE total = total + 1${bump};`
      : `INSERT INTO notification_counts (${columns}) VALUES (${values})
           ON CONFLICT (userId, status, notificationType, isRead) DO UPDATE SET total = total + 1${bump};`;
    const decrement = `UPDATE notification_counts SET total = total - 1${bump}
           WHERE userId = OLD.userId AND status = OLD.status AND notificationType = OLD.notificationType
             AND isRead = (CASE WHEN OLD.readAt IS NULL THEN 0 ELSE 1 END);`;

    for (const trigger of ['insert', 'delete', 'update']) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS trg_notifications_count_${trigger}`);
    }
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
}
