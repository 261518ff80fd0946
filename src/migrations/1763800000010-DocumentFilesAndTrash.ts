import { Table, TableColumn, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * Documents get stored files, versions and a trash:
 * - document_versions: one row per file version (the document row repeats its current version's
 *   file fields), addressed by SHA-256 in the file store; existing documents get their version row,
 *   with a null sha256 (they had no stored bytes);
 * - documents.sha256 (current version), deletedAt/deletedBy (in the trash while set);
 * - document_history.action: what an entry records (created, updated, version_added,
 *   status_changed, deleted, restored); existing entries were metadata updates.
 */
const DOCUMENTS_CANONICAL = {
  table: 'documents',
  ids: ['id', 'projectId', 'documentTypeId', 'uploadedBy'],
  timestamps: ['createdAt', 'updatedAt'],
};
const HISTORY_CANONICAL = {
  table: 'document_history',
  ids: ['id', 'documentId', 'changedBy'],
  timestamps: ['changedAt'],
};

export class DocumentFilesAndTrash1763800000010 implements MigrationInterface {
  name = 'DocumentFilesAndTrash1763800000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('documents', [
      new TableColumn({ name: 'sha256', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'deletedAt', type: 'datetime', precision: 3, isNullable: true }),
      new TableColumn({ name: 'deletedBy', type: 'varchar', length: '36', isNullable: true }),
    ]);
    await queryRunner.addColumn(
      'document_history',
      new TableColumn({ name: 'action', type: 'varchar', length: '32', default: "'updated'" }),
    );
    // TypeORM adds columns on SQLite by rebuilding the table, which drops its triggers: restore them.
    await this.restoreCanonicalForms(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'document_versions',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          { name: 'fileName', type: 'varchar', length: '255' },
          { name: 'fileSize', type: 'bigint' },
          { name: 'mimeType', type: 'varchar', length: '127' },
          { name: 'sha256', type: 'varchar', length: '64', isNullable: true },
          { name: 'comment', type: 'varchar', length: '1000', default: "''" },
          { name: 'uploadedBy', type: 'varchar', length: '36' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        // The purge asks "does any version still use these bytes?" by sha256.
        indices: [new TableIndex({ name: 'IDX_document_versions_sha256', columnNames: ['sha256'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_versions_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_document_versions_user',
            columnNames: ['uploadedBy'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_versions',
      ids: ['documentId', 'uploadedBy'],
      timestamps: ['createdAt'],
    });
    await queryRunner.query(
      `INSERT INTO document_versions (documentId, version, fileName, fileSize, mimeType, sha256, comment, uploadedBy, createdAt)
       SELECT id, currentVersion, fileName, fileSize, mimeType, NULL, '', uploadedBy, updatedAt FROM documents`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'document_versions');
    await queryRunner.dropTable('document_versions');
    await queryRunner.dropColumn('document_history', 'action');
    await queryRunner.dropColumns('documents', ['deletedBy', 'deletedAt', 'sha256']);
    await this.restoreCanonicalForms(queryRunner);
  }

  private async restoreCanonicalForms(queryRunner: QueryRunner): Promise<void> {
    for (const columns of [DOCUMENTS_CANONICAL, HISTORY_CANONICAL]) {
      await dropCanonicalFormTriggers(queryRunner, columns.table);
      await createCanonicalFormTriggers(queryRunner, columns);
    }
  }
}
