import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/** pending_files (src/storage): the uploads in flight, so that the file collector spares their bytes. */
export class PendingFiles1763800000090 implements MigrationInterface {
  name = 'PendingFiles1763800000090';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pending_files',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_pending_files_sha256', columnNames: ['sha256'] })],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, { table: 'pending_files', ids: ['id'], timestamps: ['createdAt'] });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'pending_files');
    await queryRunner.dropTable('pending_files');
  }
}
