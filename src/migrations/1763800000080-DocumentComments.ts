import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

export class DocumentComments1763800000080 implements MigrationInterface {
  name = 'DocumentComments1763800000080';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'document_comments',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36' },
          { name: 'authorId', type: 'varchar', length: '36' },
          { name: 'body', type: 'text' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'editedAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'IDX_document_comments_page', columnNames: ['documentId', 'createdAt', 'id'] }),
          new TableIndex({ name: 'IDX_document_comments_author', columnNames: ['authorId'] }),
        ],
        foreignKeys: [
          // A purged document takes its comments with it.
          new TableForeignKey({
            name: 'FK_document_comments_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_document_comments_author',
            columnNames: ['authorId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_comments',
      ids: ['id', 'documentId', 'authorId'],
      timestamps: ['createdAt'],
      nullableTimestamps: ['editedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'document_comments');
    await queryRunner.dropTable('document_comments');
  }
}
