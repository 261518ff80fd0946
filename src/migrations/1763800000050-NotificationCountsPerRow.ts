import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

const KEY = (row: 'NEW' | 'OLD') =>
  `${row}.userId, ${row}.status, ${row}.notificationType, (CASE WHEN ${row}.readAt IS NULL THEN 0 ELSE 1 END)`;
/** One statement moves the row from its old counts key to its new one (the old key's row exists: it was counted). */
const MOVE = `INSERT INTO notification_counts (userId, status, notificationType, isRead, total)
           VALUES (${KEY('OLD')}, -1), (${KEY('NEW')}, 1)
           ON DUPLICATE KEY UPDATE total = total + VALUES(total);`;
// As NotificationCounts wrote them: for down() only.
const DECREMENT = `UPDATE notification_counts SET total = total - 1
           WHERE userId = OLD.userId AND status = OLD.status AND notificationType = OLD.notificationType
             AND isRead = (CASE WHEN OLD.readAt IS NULL THEN 0 ELSE 1 END);`;
const INCREMENT = `INSERT INTO notification_counts (userId, status, notificationType, isRead, total) VALUES (${KEY('NEW')}, 1)
           ON DUPLICATE KEY UPDATE total = total + 1;`;
/** The row moved to another counts key (an update of only e.g. nextAttemptAt leaves the counts alone). */
const KEY_CHANGED = `NOT (OLD.userId <=> NEW.userId AND OLD.status <=> NEW.status
           AND OLD.notificationType <=> NEW.notificationType AND (OLD.readAt IS NULL) <=> (NEW.readAt IS NULL))`;

/**
 * MySQL/MariaDB: the notifications update trigger keeps notification_counts for every row again,
 * with no session variable to switch it off (NotificationCountsByStatement's read-all flag is
 * gone: the counts are right whoever updates). A row whose counts key did not change is skipped;
 * one that moved costs one two-row upsert instead of an UPDATE and an upsert.
 * SQLite's per-row trigger is unchanged.
 */
export class NotificationCountsPerRow1763800000050 implements MigrationInterface {
  name = 'NotificationCountsPerRow1763800000050';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_count_update');
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_count_update AFTER UPDATE ON notifications FOR EACH ROW BEGIN
         IF ${KEY_CHANGED} THEN ${MOVE} END IF;
       END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_count_update');
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_count_update AFTER UPDATE ON notifications FOR EACH ROW BEGIN
         IF @dms_counts_by_statement IS NULL THEN ${DECREMENT} ${INCREMENT} END IF;
       END`,
    );
  }
}
