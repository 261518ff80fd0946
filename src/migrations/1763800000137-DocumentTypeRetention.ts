import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

const TYPE_COLUMNS: [name: string, mysql: string, sqlite: string][] = [
  ['retentionDays', 'int NULL', 'integer'],
  ['retentionFrom', 'varchar(16) NULL', 'varchar(16)'],
  ['retentionAction', 'varchar(16) NULL', 'varchar(16)'],
  ['retentionSetBy', 'varchar(36) NULL', 'varchar(36)'],
];

/**
 * Retention (src/retention): a document type may declare {days, from, action}; retention_applications
 * records each document retention acted on (one row per document: the action is applied once; no
 * foreign key, so the record outlives a purged document). Plain ALTER TABLE keeps SQLite's triggers.
 */
export class DocumentTypeRetention1763800000137 implements MigrationInterface {
  name = 'DocumentTypeRetention1763800000137';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    for (const [name, mysqlType, sqliteType] of TYPE_COLUMNS) {
      await queryRunner.query(`ALTER TABLE document_types ADD COLUMN ${name} ${mysql ? mysqlType : sqliteType}`);
    }
    await queryRunner.createTable(
      new Table({
        name: 'retention_applications',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentTypeId', type: 'varchar', length: '36' },
          { name: 'action', type: 'varchar', length: '16' },
          { name: 'appliedAt', type: 'datetime', precision: 3 },
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'retention_applications',
      ids: ['documentId', 'documentTypeId'],
      timestamps: ['appliedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'retention_applications');
    await queryRunner.dropTable('retention_applications');
    for (const [name] of TYPE_COLUMNS.toReversed()) {
      await queryRunner.query(`ALTER TABLE document_types DROP COLUMN ${name}`);
    }
  }
}
