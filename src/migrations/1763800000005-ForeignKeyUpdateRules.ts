import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

interface ForeignKey {
  name: string;
  column: string;
  references: string;
  onDelete: 'CASCADE' | 'RESTRICT';
}

/** Every foreign key InitialSchema made, by table: none says ON UPDATE. */
const FOREIGN_KEYS: Record<string, ForeignKey[]> = {
  user_roles: [
    { name: 'FK_user_roles_user', column: 'userId', references: 'users', onDelete: 'CASCADE' },
    { name: 'FK_user_roles_role', column: 'roleId', references: 'roles', onDelete: 'CASCADE' },
  ],
  documents: [
    { name: 'FK_documents_project', column: 'projectId', references: 'projects', onDelete: 'RESTRICT' },
    {
      name: 'FK_documents_document_type',
      column: 'documentTypeId',
      references: 'document_types',
      onDelete: 'RESTRICT',
    },
    { name: 'FK_documents_uploader', column: 'uploadedBy', references: 'users', onDelete: 'RESTRICT' },
  ],
  document_history: [
    { name: 'FK_document_history_document', column: 'documentId', references: 'documents', onDelete: 'CASCADE' },
    { name: 'FK_document_history_user', column: 'changedBy', references: 'users', onDelete: 'RESTRICT' },
  ],
  notifications: [{ name: 'FK_notifications_user', column: 'userId', references: 'users', onDelete: 'CASCADE' }],
};

/**
 * MySQL/MariaDB only: states ON UPDATE NO ACTION on every foreign key. Left unsaid, MariaDB
 * records RESTRICT and MySQL 8 NO ACTION (the same behaviour in InnoDB), so the schema differed
 * by server and TypeORM, which expects NO ACTION as SQLite reports it, would drop and re-add them.
 * Adding a foreign key copies the table (InnoDB does it in place only with foreign_key_checks off,
 * and MariaDB then records ON DELETE RESTRICT as NO ACTION), so each table is copied once.
 */
export class ForeignKeyUpdateRules1763800000005 implements MigrationInterface {
  name = 'ForeignKeyUpdateRules1763800000005';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.recreate(queryRunner, ' ON UPDATE NO ACTION');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.recreate(queryRunner, '');
  }

  private async recreate(queryRunner: QueryRunner, onUpdate: string): Promise<void> {
    if (!isMysql(queryRunner)) return;
    for (const [table, keys] of Object.entries(FOREIGN_KEYS)) {
      // One statement cannot drop a key and add one of the same name.
      await queryRunner.query(
        `ALTER TABLE \`${table}\` ${keys.map((key) => `DROP FOREIGN KEY \`${key.name}\``).join(', ')}`,
      );
      const added = keys.map(
        (key) =>
          `ADD CONSTRAINT \`${key.name}\` FOREIGN KEY (\`${key.column}\`) ` +
          `REFERENCES \`${key.references}\` (\`id\`) ON DELETE ${key.onDelete}${onUpdate}`,
      );
      await queryRunner.query(`ALTER TABLE \`${table}\` ${added.join(', ')}`);
    }
  }
}
