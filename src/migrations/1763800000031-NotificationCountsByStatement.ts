import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * The session flag a bulk read-all sets while it keeps notification_counts itself (one grouped
 * statement per chunk); the notifications feature names the same variable (inbox.sql.ts). Written
 * out here, not imported: a migration is a frozen snapshot, and features never import migrations.
 */
const COUNTS_BY_STATEMENT_FLAG = '@dms_counts_by_statement';

const KEY = (row: 'NEW' | 'OLD') =>
  `${row}.userId, ${row}.status, ${row}.notificationType, (CASE WHEN ${row}.readAt IS NULL THEN 0 ELSE 1 END)`;
const DECREMENT = `UPDATE notification_counts SET total = total - 1
           WHERE userId = OLD.userId AND status = OLD.status AND notificationType = OLD.notificationType
             AND isRead = (CASE WHEN OLD.readAt IS NULL THEN 0 ELSE 1 END);`;
const INCREMENT = `INSERT INTO notification_counts (userId, status, notificationType, isRead, total) VALUES (${KEY('NEW')}, 1)
           ON DUPLICATE KEY UPDATE total = total + 1;`;

/**
 * MySQL/MariaDB: the update count trigger skips its work while the session flag is set, so a bulk
 * read-all pays one grouped upsert per chunk instead of two count statements per row (the per-row
 * upkeep was about half of a 100,000-row read-all). Only read-all sets the flag, inside its own
 * transaction, and clears it before the transaction ends. SQLite keeps the per-row trigger: it is
 * fast enough there (a single writer with no lock waits) and its triggers cannot read a session
 * variable, so this migration changes nothing on SQLite.
 */
export class NotificationCountsByStatement1763800000031 implements MigrationInterface {
  name = 'NotificationCountsByStatement1763800000031';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_count_update');
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_count_update AFTER UPDATE ON notifications FOR EACH ROW BEGIN
         IF ${COUNTS_BY_STATEMENT_FLAG} IS NULL THEN ${DECREMENT} ${INCREMENT} END IF;
       END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_count_update');
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_count_update AFTER UPDATE ON notifications FOR EACH ROW BEGIN ${DECREMENT} ${INCREMENT} END`,
    );
  }
}
