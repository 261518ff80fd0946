import { Table, TableForeignKey, TableIndex, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * Webhooks (src/webhooks): the hooks, their delivery log, and the outbox's progress marker for
 * them (`webhooksQueuedAt`, added with plain ALTER TABLE so SQLite keeps the outbox's triggers).
 * Events recorded before this migration are marked as queued: hooks hear only of what follows.
 */
export class Webhooks1763800000145 implements MigrationInterface {
  name = 'Webhooks1763800000145';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await queryRunner.query(
      `ALTER TABLE outbox_events ADD COLUMN webhooksQueuedAt ${mysql ? 'datetime(3) NULL' : 'datetime(3)'}`,
    );
    await queryRunner.query('UPDATE outbox_events SET webhooksQueuedAt = createdAt');
    await queryRunner.query(
      'CREATE INDEX IDX_outbox_events_webhooks_pending ON outbox_events (webhooksQueuedAt, createdAt)',
    );

    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'ownerId', type: 'varchar', length: '36' },
          { name: 'projectId', type: 'varchar', length: '36', isNullable: true },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'description', type: 'varchar', length: '500' },
          { name: 'events', type: 'json' },
          { name: 'secret', type: 'varchar', length: '100' },
          { name: 'enabled', type: 'boolean' },
          { name: 'disabledAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'updatedAt', type: 'datetime', precision: 3 },
        ],
        indices: [
          new TableIndex({ name: 'IDX_webhooks_project', columnNames: ['projectId'] }),
          new TableIndex({ name: 'IDX_webhooks_owner', columnNames: ['ownerId'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_webhooks_owner',
            columnNames: ['ownerId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
            onUpdate: 'NO ACTION',
          }),
          // A deleted project takes its hooks with it.
          new TableForeignKey({
            name: 'FK_webhooks_project',
            columnNames: ['projectId'],
            referencedTableName: 'projects',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'webhooks',
      ids: ['id', 'ownerId'],
      timestamps: ['createdAt', 'updatedAt'],
      nullableTimestamps: ['disabledAt'],
    });

    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'hookId', type: 'varchar', length: '36' },
          { name: 'eventId', type: 'varchar', length: '36' },
          { name: 'eventType', type: 'varchar', length: '64' },
          { name: 'body', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer' },
          { name: 'nextAttemptAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'lastAttemptAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'responseStatus', type: 'integer', isNullable: true },
          { name: 'durationMs', type: 'integer', isNullable: true },
          { name: 'lastError', type: 'varchar', length: '255', isNullable: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'finishedAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        uniques: [new TableUnique({ name: 'UQ_webhook_deliveries_event', columnNames: ['hookId', 'eventId'] })],
        indices: [
          new TableIndex({ name: 'IDX_webhook_deliveries_due', columnNames: ['nextAttemptAt'] }),
          new TableIndex({ name: 'IDX_webhook_deliveries_log', columnNames: ['hookId', 'createdAt', 'id'] }),
          new TableIndex({ name: 'IDX_webhook_deliveries_finished', columnNames: ['hookId', 'finishedAt'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_webhook_deliveries_hook',
            columnNames: ['hookId'],
            referencedTableName: 'webhooks',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'webhook_deliveries',
      ids: ['id', 'hookId', 'eventId'],
      timestamps: ['createdAt'],
      nullableTimestamps: ['nextAttemptAt', 'lastAttemptAt', 'finishedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'webhook_deliveries');
    await queryRunner.dropTable('webhook_deliveries');
    await dropCanonicalFormTriggers(queryRunner, 'webhooks');
    await queryRunner.dropTable('webhooks');
    const onTable = isMysql(queryRunner) ? ' ON outbox_events' : '';
    await queryRunner.query(`DROP INDEX IDX_outbox_events_webhooks_pending${onTable}`);
    await queryRunner.query('ALTER TABLE outbox_events DROP COLUMN webhooksQueuedAt');
  }
}
