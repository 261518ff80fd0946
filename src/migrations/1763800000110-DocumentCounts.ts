import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The list's keyset indexes for the createdAt and title sorts, per project and over everything. */
export const DOCUMENT_SORT_INDEXES = [
  new TableIndex({ name: 'IDX_documents_project_created', columnNames: ['projectId', 'deletedAt', 'createdAt', 'id'] }),
  new TableIndex({ name: 'IDX_documents_project_title', columnNames: ['projectId', 'deletedAt', 'title', 'id'] }),
  new TableIndex({ name: 'IDX_documents_deleted_created', columnNames: ['deletedAt', 'createdAt', 'id'] }),
  new TableIndex({ name: 'IDX_documents_deleted_title', columnNames: ['deletedAt', 'title', 'id'] }),
];

/**
 * document_counts: how many live (untrashed) documents each (project, status, type) has, over all
 * uploaders (uploadedBy '') and per uploader, and over any status and type (both ''); kept by
 * DocumentCounts in the transaction of every write that moves a document between keys; the list's
 * total is a sum over a few of its rows. Filled here from the documents as they are.
 */
export class DocumentCounts1763800000110 implements MigrationInterface {
  name = 'DocumentCounts1763800000110';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of DOCUMENT_SORT_INDEXES) await queryRunner.createIndex('documents', index);
    await queryRunner.createTable(
      new Table({
        name: 'document_counts',
        columns: [
          { name: 'projectId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'uploadedBy', type: 'varchar', length: '36', isPrimary: true },
          { name: 'status', type: 'varchar', length: '32', isPrimary: true },
          { name: 'documentTypeId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'total', type: 'bigint' },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_document_counts_uploader',
            columnNames: ['uploadedBy', 'status', 'documentTypeId', 'projectId', 'total'],
          }),
        ],
      }),
    );
    const live = 'FROM documents WHERE deletedAt IS NULL';
    // Run again after a failure half-way (rerunnable), the fill starts over.
    await queryRunner.query('DELETE FROM document_counts');
    await queryRunner.query(
      `INSERT INTO document_counts (projectId, uploadedBy, status, documentTypeId, total)
       SELECT projectId, '', status, documentTypeId, COUNT(*) ${live} GROUP BY projectId, status, documentTypeId
       UNION ALL
       SELECT projectId, '', '', '', COUNT(*) ${live} GROUP BY projectId
       UNION ALL
       SELECT projectId, uploadedBy, status, documentTypeId, COUNT(*) ${live} GROUP BY projectId, uploadedBy, status, documentTypeId
       UNION ALL
       SELECT projectId, uploadedBy, '', '', COUNT(*) ${live} GROUP BY projectId, uploadedBy`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('document_counts');
    for (const index of DOCUMENT_SORT_INDEXES) await queryRunner.dropIndex('documents', index.name!);
  }
}
