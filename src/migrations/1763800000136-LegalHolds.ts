import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { DEFAULT_ROLES } from './1763800000002-DefaultRoles.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

const ADMIN_ROLE_ID = DEFAULT_ROLES[0].id;

const foreignKey = (name: string, column: string, table: string, onDelete: 'CASCADE' | 'RESTRICT') =>
  new TableForeignKey({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete,
    onUpdate: 'NO ACTION',
  });

/**
 * Legal holds (src/legal-holds): a hold names documents and/or a project; held documents cannot
 * be removed (the documents foreign key restricts it too). The admin role gets legalHolds:manage.
 */
export class LegalHolds1763800000136 implements MigrationInterface {
  name = 'LegalHolds1763800000136';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'legal_holds',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'reason', type: 'text' },
          { name: 'projectId', type: 'varchar', length: '36', isNullable: true },
          { name: 'createdBy', type: 'varchar', length: '36' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_legal_holds_project', columnNames: ['projectId'] })],
        foreignKeys: [
          foreignKey('FK_legal_holds_project', 'projectId', 'projects', 'RESTRICT'),
          foreignKey('FK_legal_holds_creator', 'createdBy', 'users', 'RESTRICT'),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'legal_holds',
      ids: ['id', 'createdBy'],
      timestamps: ['createdAt'],
    });
    await queryRunner.createTable(
      new Table({
        name: 'legal_hold_documents',
        columns: [
          { name: 'holdId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
        ],
        indices: [new TableIndex({ name: 'IDX_legal_hold_documents_document', columnNames: ['documentId'] })],
        foreignKeys: [
          foreignKey('FK_legal_hold_documents_hold', 'holdId', 'legal_holds', 'CASCADE'),
          foreignKey('FK_legal_hold_documents_document', 'documentId', 'documents', 'RESTRICT'),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'legal_hold_documents',
      ids: ['holdId', 'documentId'],
      timestamps: [],
    });
    await this.grantToAdmin(queryRunner, (permissions) => ({ ...permissions, legalHolds: ['manage'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.grantToAdmin(queryRunner, ({ legalHolds: _removed, ...permissions }) => permissions);
    await dropCanonicalFormTriggers(queryRunner, 'legal_hold_documents');
    await queryRunner.dropTable('legal_hold_documents');
    await dropCanonicalFormTriggers(queryRunner, 'legal_holds');
    await queryRunner.dropTable('legal_holds');
  }

  private async grantToAdmin(
    queryRunner: QueryRunner,
    change: (permissions: Record<string, string[]>) => Record<string, string[]>,
  ): Promise<void> {
    const rows = (await queryRunner.query('SELECT permissions FROM roles WHERE id = ?', [ADMIN_ROLE_ID])) as {
      permissions: string;
    }[];
    if (rows.length === 0) return;
    const permissions = JSON.parse(rows[0].permissions) as Record<string, string[]>;
    await queryRunner.query('UPDATE roles SET permissions = ? WHERE id = ?', [
      JSON.stringify(change(permissions)),
      ADMIN_ROLE_ID,
    ]);
  }
}
