import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

const foreignKey = (name: string, column: string, table: string) =>
  new TableForeignKey({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
    onUpdate: 'NO ACTION',
  });

/**
 * Typed custom fields (src/custom-fields, docs/governance.md "Custom fields"): the fields a document
 * type declares, one typed row per document and field (text-like values in textValue, numbers and
 * booleans in numberValue, each indexed by (fieldId, value, documentId) so that a filter or sort on
 * one field is an index range), and documents.fields, the values as the answers show them.
 */
export class CustomFields1763800000150 implements MigrationInterface {
  name = 'CustomFields1763800000150';

  async up(queryRunner: QueryRunner): Promise<void> {
    const binary = isMysql(queryRunner) ? { collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'document_fields',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentTypeId', type: 'varchar', length: '36' },
          { name: 'key', type: 'varchar', length: '64', ...binary },
          { name: 'label', type: 'varchar', length: '100' },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'required', type: 'boolean' },
          { name: 'options', type: 'text', isNullable: true },
          { name: 'min', type: 'double', isNullable: true },
          { name: 'max', type: 'double', isNullable: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        indices: [
          new TableIndex({
            name: 'UQ_document_fields_type_key',
            columnNames: ['documentTypeId', 'key'],
            isUnique: true,
          }),
        ],
        foreignKeys: [foreignKey('FK_document_fields_type', 'documentTypeId', 'document_types')],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_fields',
      ids: ['id', 'documentTypeId'],
      timestamps: ['createdAt'],
    });
    await queryRunner.createTable(
      new Table({
        name: 'document_field_values',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'fieldId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'textValue', type: 'varchar', length: '500', isNullable: true, ...binary },
          { name: 'numberValue', type: 'double', isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_document_field_values_text',
            columnNames: ['fieldId', 'textValue', 'documentId'],
          }),
          new TableIndex({
            name: 'IDX_document_field_values_number',
            columnNames: ['fieldId', 'numberValue', 'documentId'],
          }),
        ],
        foreignKeys: [
          foreignKey('FK_document_field_values_document', 'documentId', 'documents'),
          foreignKey('FK_document_field_values_field', 'fieldId', 'document_fields'),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_field_values',
      ids: ['documentId', 'fieldId'],
      timestamps: [],
    });
    // Plain ALTER TABLE keeps SQLite's triggers on documents; nullable: MariaDB adds it instantly.
    await queryRunner.query('ALTER TABLE documents ADD COLUMN fields text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE documents DROP COLUMN fields');
    await dropCanonicalFormTriggers(queryRunner, 'document_field_values');
    await queryRunner.dropTable('document_field_values');
    await dropCanonicalFormTriggers(queryRunner, 'document_fields');
    await queryRunner.dropTable('document_fields');
  }
}
