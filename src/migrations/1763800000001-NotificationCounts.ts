import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * notification_counts holds exact per-user totals per (status, type, read) and is kept by
 * triggers, so it stays right whoever writes notifications (this service, a batch job, SQL).
 */
export class NotificationCounts1763800000001 implements MigrationInterface {
  name = 'NotificationCounts1763800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await queryRunner.query(
      `CREATE TABLE notification_counts (
        userId varchar(36) NOT NULL,
        status varchar(16) NOT NULL,
        notificationType varchar(16) NOT NULL,
        isRead ${mysql ? 'tinyint' : 'integer'} NOT NULL,
        total ${mysql ? 'bigint' : 'integer'} NOT NULL,
        PRIMARY KEY (userId, status, notificationType, isRead)
      )${mysql ? ' ENGINE=InnoDB' : ''}`,
    );

    const key = (row: 'NEW' | 'OLD') =>
      `${row}.userId, ${row}.status, ${row}.notificationType, (CASE WHEN ${row}.readAt IS NULL THEN 0 ELSE 1 END)`;
    const increment = mysql
      ? `INSERT INTO notification_counts (userId, status, notificationType, isRead, total) VALUES (${key('NEW')}, 1)
           ON DUPLICATE KEY UPDATE total = total + 1;`
      : `INSERT INTO notification_counts (userId, status, notificationType, isRead, total) VALUES (${key('NEW')}, 1)
           ON CONFLICT (userId, status, notificationType, isRead) DO UPDATE SET total = total + 1;`;
    const decrement = `UPDATE notification_counts SET total = total - 1
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

    // Rows written before this migration (none on a fresh install) are counted once here.
    await queryRunner.query(
      `INSERT INTO notification_counts (userId, status, notificationType, isRead, total)
       SELECT userId, status, notificationType, CASE WHEN readAt IS NULL THEN 0 ELSE 1 END, COUNT(*)
       FROM notifications GROUP BY userId, status, notificationType, CASE WHEN readAt IS NULL THEN 0 ELSE 1 END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const trigger of ['insert', 'delete', 'update']) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS trg_notifications_count_${trigger}`);
    }
    await queryRunner.query('DROP TABLE notification_counts');
  }
}
