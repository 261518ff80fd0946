import { Table, TableColumn, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { DEFAULT_ROLES } from './1763800000002-DefaultRoles.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * Projects get members with a project role (viewer, contributor, manager) and a description;
 * document types a description. The default roles move to the permission catalogue
 * (src/common/authz/permission-catalogue.ts): admin holds every permission, editor
 * documents:read+update (the uploader-or-documents:update rule keeps holding), user none (the old
 * notifications:read was never checked). Roles an operator changed since are left alone.
 */
const CATALOGUE_ROLES: Record<string, { before: object; after: object }> = {
  [DEFAULT_ROLES[0].id]: {
    before: DEFAULT_ROLES[0].permissions,
    after: {
      documents: ['read', 'create', 'update', 'delete', 'publish', 'purge'],
      projects: ['manage'],
      documentTypes: ['manage'],
      users: ['manage'],
      roles: ['manage'],
      audit: ['read'],
    },
  },
  [DEFAULT_ROLES[1].id]: { before: DEFAULT_ROLES[1].permissions, after: { documents: ['read', 'update'] } },
  [DEFAULT_ROLES[2].id]: { before: DEFAULT_ROLES[2].permissions, after: {} },
};

export class ProjectMembership1763800000009 implements MigrationInterface {
  name = 'ProjectMembership1763800000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'projects',
      new TableColumn({ name: 'description', type: 'varchar', length: '2000', default: "''" }),
    );
    await queryRunner.addColumn(
      'document_types',
      new TableColumn({ name: 'description', type: 'varchar', length: '1000', default: "''" }),
    );
    // TypeORM adds a column on SQLite by rebuilding the table, which drops its triggers: restore them.
    await this.restoreCanonicalForms(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'project_members',
        columns: [
          { name: 'projectId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'userId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        // "Which projects is this user in" (lists, permission checks) reads this index alone.
        indices: [new TableIndex({ name: 'IDX_project_members_user', columnNames: ['userId', 'projectId'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_project_members_project',
            columnNames: ['projectId'],
            referencedTableName: 'projects',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_project_members_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'project_members',
      ids: ['projectId', 'userId'],
      timestamps: ['createdAt'],
    });
    for (const [id, { before, after }] of Object.entries(CATALOGUE_ROLES)) {
      await queryRunner.query('UPDATE roles SET permissions = ? WHERE id = ? AND permissions = ?', [
        JSON.stringify(after),
        id,
        JSON.stringify(before),
      ]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [id, { before, after }] of Object.entries(CATALOGUE_ROLES)) {
      await queryRunner.query('UPDATE roles SET permissions = ? WHERE id = ? AND permissions = ?', [
        JSON.stringify(before),
        id,
        JSON.stringify(after),
      ]);
    }
    await dropCanonicalFormTriggers(queryRunner, 'project_members');
    await queryRunner.dropTable('project_members');
    await queryRunner.dropColumn('document_types', 'description');
    await queryRunner.dropColumn('projects', 'description');
    await this.restoreCanonicalForms(queryRunner);
  }

  private async restoreCanonicalForms(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['projects', 'document_types']) {
      await dropCanonicalFormTriggers(queryRunner, table);
      await createCanonicalFormTriggers(queryRunner, { table, ids: ['id'], timestamps: ['createdAt'] });
    }
  }
}
