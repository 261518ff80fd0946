import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { identityKey } from '../common/text/identity-key.js';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * document_types.nameKey: identityKey(name), uniquely indexed, so two types cannot differ only by
 * case or Unicode form (as users.usernameKey). Computed here in JavaScript (SQLite has no Unicode
 * case folding); existing types that fold to the same key stop the migration, naming them.
 */
export class DocumentTypeNameKeys1763800000021 implements MigrationInterface {
  name = 'DocumentTypeNameKeys1763800000021';

  async up(queryRunner: QueryRunner): Promise<void> {
    const types = (await queryRunner.query('SELECT id, name FROM document_types')) as { id: string; name: string }[];
    const byKey = new Map<string, string[]>();
    for (const type of types)
      byKey.set(identityKey(type.name), [...(byKey.get(identityKey(type.name)) ?? []), type.name]);
    const clashes = [...byKey.values()].filter((names) => names.length > 1);
    if (clashes.length) {
      throw new Error(
        'DocumentTypeNameKeys: these document types have the same name ignoring case and Unicode form; rename ' +
          `all but one of each group, then run the migrations again: ${clashes.map((names) => names.map((name) => JSON.stringify(name)).join(', ')).join('; ')}.`,
      );
    }
    await queryRunner.addColumn(
      'document_types',
      new TableColumn({
        name: 'nameKey',
        type: 'varchar',
        length: '255',
        isNullable: true,
        ...(isMysql(queryRunner) ? { collation: 'utf8mb4_bin' } : {}),
      }),
    );
    for (const type of types) {
      await queryRunner.query('UPDATE document_types SET nameKey = ? WHERE id = ?', [identityKey(type.name), type.id]);
    }
    await queryRunner.createIndex(
      'document_types',
      new TableIndex({ name: 'UQ_document_types_name_key', columnNames: ['nameKey'], isUnique: true }),
    );
    await this.restoreCanonicalForms(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('document_types', 'UQ_document_types_name_key');
    await queryRunner.dropColumn('document_types', 'nameKey');
    await this.restoreCanonicalForms(queryRunner);
  }

  /** TypeORM adds and drops a column on SQLite by rebuilding the table, which drops its triggers. */
  private async restoreCanonicalForms(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'document_types');
    await createCanonicalFormTriggers(queryRunner, { table: 'document_types', ids: ['id'], timestamps: ['createdAt'] });
  }
}
