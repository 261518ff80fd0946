import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * The audit trail becomes a hash chain (src/audit/audit-chain.ts): each event records its
 * sequence, the previous event's hash and its own; audit_chain_head holds the end of the chain
 * (one row, locked by each audited transaction). The chain begins here: events recorded before
 * keep null links, and the first event after has sequence 1 and previousHash 64 zeros.
 * Columns are added with plain ALTER TABLE so SQLite keeps audit_events' canonical-form triggers.
 */
export class AuditChain1763800000135 implements MigrationInterface {
  name = 'AuditChain1763800000135';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await queryRunner.query(`ALTER TABLE audit_events ADD COLUMN sequence ${mysql ? 'bigint NULL' : 'bigint'}`);
    for (const column of ['previousHash', 'hash']) {
      await queryRunner.query(`ALTER TABLE audit_events ADD COLUMN ${column} varchar(64)${mysql ? ' NULL' : ''}`);
    }
    await queryRunner.query('CREATE UNIQUE INDEX IDX_audit_events_sequence ON audit_events (sequence)');
    await queryRunner.createTable(
      new Table({
        name: 'audit_chain_head',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'sequence', type: 'bigint' },
          { name: 'hash', type: 'varchar', length: '64' },
          { name: 'at', type: 'datetime', precision: 3 },
        ],
      }),
    );
    // The genesis head, once (a re-run after a failure half-way finds it there).
    const [{ n }] = (await queryRunner.query('SELECT COUNT(*) AS n FROM audit_chain_head')) as { n: number | string }[];
    if (Number(n) === 0) {
      await queryRunner.query('INSERT INTO audit_chain_head (id, sequence, hash, at) VALUES (1, 0, ?, ?)', [
        '0'.repeat(64),
        '1970-01-01 00:00:00.000',
      ]);
    }
    await createCanonicalFormTriggers(queryRunner, { table: 'audit_chain_head', ids: [], timestamps: ['at'] });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'audit_chain_head');
    await queryRunner.dropTable('audit_chain_head');
    await queryRunner.query(
      isMysql(queryRunner)
        ? 'DROP INDEX IDX_audit_events_sequence ON audit_events'
        : 'DROP INDEX IDX_audit_events_sequence',
    );
    for (const column of ['hash', 'previousHash', 'sequence']) {
      await queryRunner.query(`ALTER TABLE audit_events DROP COLUMN ${column}`);
    }
  }
}
