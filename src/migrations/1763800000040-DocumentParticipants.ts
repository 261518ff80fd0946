import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * document_participants: one row per (document, person taking part), so that who hears of a
 * document is read off its own rows instead of the document's whole history. Backfilled from the
 * uploaders, the history's authors and the versions' uploaders.
 */
export class DocumentParticipants1763800000040 implements MigrationInterface {
  name = 'DocumentParticipants1763800000040';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'document_participants',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
        ],
        indices: [new TableIndex({ name: 'IDX_document_participants_user', columnNames: ['userId'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_participants_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_document_participants_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    // UNION drops the duplicates, so the primary key never refuses a row.
    await queryRunner.query(
      'INSERT INTO document_participants (documentId, userId) ' +
        'SELECT id, uploadedBy FROM documents ' +
        'UNION SELECT documentId, changedBy FROM document_history ' +
        'UNION SELECT documentId, uploadedBy FROM document_versions',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('document_participants');
  }
}
