import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/** The first answers of creating requests sent with an Idempotency-Key (issue 30 item 5). */
export class IdempotencyKeys1763800000070 implements MigrationInterface {
  name = 'IdempotencyKeys1763800000070';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'idempotencyKey', type: 'varchar', length: '255', isPrimary: true },
          { name: 'requestHash', type: 'varchar', length: '64' },
          // SQLite spells it integer, as TypeORM's schema reader does.
          { name: 'status', type: isMysql(queryRunner) ? 'int' : 'integer', isNullable: true },
          { name: 'responseBody', type: 'text', isNullable: true },
          { name: 'location', type: 'varchar', length: '2048', isNullable: true },
          { name: 'expiresAt', type: 'datetime', precision: 3 },
        ],
      }),
    );
    await queryRunner.createIndex(
      'idempotency_keys',
      new TableIndex({ name: 'IDX_idempotency_keys_expires', columnNames: ['expiresAt'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_keys');
  }
}
