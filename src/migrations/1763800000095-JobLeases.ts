import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/** job_leases (src/scheduling): which instance runs each cluster-wide job, until when. */
export class JobLeases1763800000095 implements MigrationInterface {
  name = 'JobLeases1763800000095';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'job_leases',
        columns: [
          { name: 'name', type: 'varchar', length: '100', isPrimary: true },
          { name: 'holder', type: 'varchar', length: '100' },
          { name: 'expiresAt', type: 'datetime', precision: 3 },
        ],
      }),
      true,
    );
    await createCanonicalFormTriggers(queryRunner, { table: 'job_leases', ids: [], timestamps: ['expiresAt'] });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'job_leases');
    await queryRunner.dropTable('job_leases');
  }
}
