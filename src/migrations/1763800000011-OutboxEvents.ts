import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/** The transactional outbox (src/events): domain events written with the change they record. */
export class OutboxEvents1763800000011 implements MigrationInterface {
  name = 'OutboxEvents1763800000011';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'outbox_events',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'type', type: 'varchar', length: '64' },
          { name: 'actorId', type: 'varchar', length: '36' },
          { name: 'projectId', type: 'varchar', length: '36', isNullable: true },
          { name: 'documentId', type: 'varchar', length: '36', isNullable: true },
          { name: 'subjectUserId', type: 'varchar', length: '36', isNullable: true },
          { name: 'payload', type: 'json' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'dispatchedAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [new TableIndex({ name: 'IDX_outbox_events_pending', columnNames: ['dispatchedAt', 'createdAt'] })],
      }),
    );
    // Nullable ids are not covered by the canonical-form triggers (they accept only non-null ids).
    await createCanonicalFormTriggers(queryRunner, {
      table: 'outbox_events',
      ids: ['id', 'actorId'],
      timestamps: ['createdAt'],
      nullableTimestamps: ['dispatchedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'outbox_events');
    await queryRunner.dropTable('outbox_events');
  }
}
