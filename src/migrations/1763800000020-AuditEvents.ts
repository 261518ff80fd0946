import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/** The audit trail (src/audit): one row per recorded decision, append-only, newest-first indexes. */
export class AuditEvents1763800000020 implements MigrationInterface {
  name = 'AuditEvents1763800000020';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'audit_events',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'at', type: 'datetime', precision: 3 },
          { name: 'actorId', type: 'varchar', length: '36', isNullable: true },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'targetType', type: 'varchar', length: '32' },
          { name: 'targetId', type: 'varchar', length: '36', isNullable: true },
          { name: 'ip', type: 'varchar', length: '64', isNullable: true },
          { name: 'requestId', type: 'varchar', length: '128', isNullable: true },
          { name: 'changes', type: 'text' },
        ],
        // The list is newest first, unfiltered or by actor, target or action.
        indices: [
          new TableIndex({ name: 'IDX_audit_events_at', columnNames: ['at', 'id'] }),
          new TableIndex({ name: 'IDX_audit_events_actor', columnNames: ['actorId', 'at'] }),
          new TableIndex({ name: 'IDX_audit_events_target', columnNames: ['targetType', 'targetId', 'at'] }),
          new TableIndex({ name: 'IDX_audit_events_action', columnNames: ['action', 'at'] }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, { table: 'audit_events', ids: ['id'], timestamps: ['at'] });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'audit_events');
    await queryRunner.dropTable('audit_events');
  }
}
