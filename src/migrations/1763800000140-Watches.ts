import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

const foreignKey = (table: string, column: string, referenced: string) =>
  new TableForeignKey({
    name: `FK_${table}_${column.replace(/Id$/, '')}`,
    columnNames: [column],
    referencedTableName: referenced,
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
    onUpdate: 'NO ACTION',
  });

/**
 * Watching (issue 33, src/watches): document_watches holds one row per (document, user), `watching`
 * or `muted`; project_watches one row per (project, user). Both go with their document, project or user.
 */
export class Watches1763800000140 implements MigrationInterface {
  name = 'Watches1763800000140';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'document_watches',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_document_watches_user', columnNames: ['userId'] })],
        foreignKeys: [
          foreignKey('document_watches', 'documentId', 'documents'),
          foreignKey('document_watches', 'userId', 'users'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'project_watches',
        columns: [
          { name: 'projectId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_project_watches_user', columnNames: ['userId'] })],
        foreignKeys: [
          foreignKey('project_watches', 'projectId', 'projects'),
          foreignKey('project_watches', 'userId', 'users'),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_watches',
      ids: ['documentId', 'userId'],
      timestamps: ['createdAt'],
    });
    await createCanonicalFormTriggers(queryRunner, {
      table: 'project_watches',
      ids: ['projectId', 'userId'],
      timestamps: ['createdAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'project_watches');
    await dropCanonicalFormTriggers(queryRunner, 'document_watches');
    await queryRunner.dropTable('project_watches');
    await queryRunner.dropTable('document_watches');
  }
}
