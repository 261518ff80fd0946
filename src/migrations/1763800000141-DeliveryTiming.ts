import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

type Columns = [name: string, mysql: string, sqlite: string][];

/** E-mail timing per event type (null: the event's default, see notification-preferences.ts). */
const PREFERENCE_COLUMNS: Columns = [
  ['emailMode', 'varchar(16) NULL', 'varchar(16)'],
  ['emailDelayMinutes', 'int NULL', 'integer'],
];
/** How an e-mail row is sent (immediate, if_unread, hourly, daily); null for rows made before. */
const NOTIFICATION_COLUMNS: Columns = [['deliveryMode', 'varchar(16) NULL', 'varchar(16)']];
/** A user's attention settings: time zone, quiet hours ("HH:MM"), urgent bypass and snooze. */
const USER_COLUMNS: Columns = [
  ['timezone', "varchar(64) NOT NULL DEFAULT 'UTC'", "varchar(64) NOT NULL DEFAULT ('UTC')"],
  ['quietHoursStart', 'varchar(5) NULL', 'varchar(5)'],
  ['quietHoursEnd', 'varchar(5) NULL', 'varchar(5)'],
  ['urgentBypass', 'tinyint NOT NULL DEFAULT 1', 'boolean NOT NULL DEFAULT (1)'],
  ['snoozedUntil', 'datetime(3) NULL', 'datetime(3)'],
];

/**
 * Delivery timing (issue 33): e-mail modes in the preferences, the mode on each e-mail row, the
 * users' attention settings, and an index for threads (a user's in-app notifications by document).
 * Plain ALTER TABLE ... ADD COLUMN on both databases, so SQLite keeps the tables' triggers.
 */
export class DeliveryTiming1763800000141 implements MigrationInterface {
  name = 'DeliveryTiming1763800000141';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    const add = async (table: string, columns: Columns) => {
      for (const [name, mysqlType, sqliteType] of columns) {
        await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN ${name} ${mysql ? mysqlType : sqliteType}`);
      }
    };
    await add('notification_preferences', PREFERENCE_COLUMNS);
    await add('notifications', NOTIFICATION_COLUMNS);
    await add('users', USER_COLUMNS);
    await queryRunner.query(
      'CREATE INDEX IDX_notifications_user_type_document ON notifications ' +
        '(userId, notificationType, documentId, readAt, createdAt)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      isMysql(queryRunner)
        ? 'DROP INDEX IDX_notifications_user_type_document ON notifications'
        : 'DROP INDEX IDX_notifications_user_type_document',
    );
    for (const [table, columns] of [
      ['users', USER_COLUMNS],
      ['notifications', NOTIFICATION_COLUMNS],
      ['notification_preferences', PREFERENCE_COLUMNS],
    ] as const) {
      for (const [name] of columns.toReversed()) await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${name}`);
    }
  }
}
