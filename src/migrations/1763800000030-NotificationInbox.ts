import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * Notifications made from outbox events (issue 12): each remembers its event type, document, the
 * event it came from (unique per recipient and channel: the dispatcher's last line of defence
 * against duplicates), its delivery status (what `status` returns to when marked unread) and the
 * e-mail worker's attempts and next attempt time. Plus per-user preferences and single-use stream
 * tickets.
 *
 * Columns are added with plain ALTER TABLE ... ADD COLUMN on both databases: SQLite adds them in
 * place, so the count triggers (migration 0004) and the canonical-form triggers (0008) on
 * notifications are kept (TypeORM's addColumn would rebuild the table and drop them).
 */
const NOTIFICATION_COLUMNS: [name: string, mysql: string, sqlite: string][] = [
  ['event', 'varchar(64) NULL', 'varchar(64)'],
  ['documentId', 'varchar(36) NULL', 'varchar(36)'],
  ['sourceEventId', 'varchar(36) NULL', 'varchar(36)'],
  // Null: not recorded (rows written without it, e.g. by the seed); `status` then says it unless read.
  ['deliveryStatus', 'varchar(16) NULL', 'varchar(16)'],
  ['attempts', 'int NOT NULL DEFAULT 0', 'integer NOT NULL DEFAULT (0)'],
  ['nextAttemptAt', 'datetime(3) NULL', 'datetime(3)'],
];

export class NotificationInbox1763800000030 implements MigrationInterface {
  name = 'NotificationInbox1763800000030';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    for (const [name, mysqlType, sqliteType] of NOTIFICATION_COLUMNS) {
      await queryRunner.query(`ALTER TABLE notifications ADD COLUMN ${name} ${mysql ? mysqlType : sqliteType}`);
    }
    // Existing rows: a row that is not read was delivered as its status says.
    await queryRunner.query("UPDATE notifications SET deliveryStatus = status WHERE status <> 'read'");
    await queryRunner.query(
      'CREATE UNIQUE INDEX IDX_notifications_source ON notifications (sourceEventId, userId, notificationType)',
    );
    await queryRunner.query('CREATE INDEX IDX_notifications_next_attempt ON notifications (nextAttemptAt)');

    await queryRunner.createTable(
      new Table({
        name: 'notification_preferences',
        columns: [
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'event', type: 'varchar', length: '64', isPrimary: true },
          { name: 'inApp', type: 'boolean' },
          { name: 'email', type: 'boolean' },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_notification_preferences_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'notification_preferences',
      ids: ['userId'],
      timestamps: [],
    });

    await queryRunner.createTable(
      new Table({
        name: 'notification_stream_tickets',
        columns: [
          // SHA-256 (hex) of the ticket: the ticket itself is never stored.
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'userId', type: 'varchar', length: '36' },
          { name: 'tokenVersion', type: 'integer' },
          { name: 'tokenExpiresAt', type: 'datetime', precision: 3 },
          { name: 'expiresAt', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_notification_stream_tickets_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'notification_stream_tickets',
      ids: ['userId'],
      timestamps: ['tokenExpiresAt', 'expiresAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'notification_stream_tickets');
    await queryRunner.dropTable('notification_stream_tickets');
    await dropCanonicalFormTriggers(queryRunner, 'notification_preferences');
    await queryRunner.dropTable('notification_preferences');
    const mysql = isMysql(queryRunner);
    await queryRunner.query(`DROP INDEX IDX_notifications_next_attempt${mysql ? ' ON notifications' : ''}`);
    await queryRunner.query(`DROP INDEX IDX_notifications_source${mysql ? ' ON notifications' : ''}`);
    // SQLite (3.35+) drops a column in place too, keeping the triggers.
    for (const [name] of NOTIFICATION_COLUMNS.toReversed()) {
      await queryRunner.query(`ALTER TABLE notifications DROP COLUMN ${name}`);
    }
  }
}
