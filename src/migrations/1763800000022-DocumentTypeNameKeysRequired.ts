import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { identityKey } from '../common/text/identity-key.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * document_types.nameKey becomes NOT NULL: every type has its identity key, so the unique index
 * holds for every row (NULLs never collide, so a type written without a key escaped it). Rows
 * written without one since DocumentTypeNameKeys get identityKey(name) first; a row whose key
 * another type already holds stops the migration, naming both.
 */
export class DocumentTypeNameKeysRequired1763800000022 implements MigrationInterface {
  name = 'DocumentTypeNameKeysRequired1763800000022';

  async up(queryRunner: QueryRunner): Promise<void> {
    const types = (await queryRunner.query('SELECT id, name, nameKey FROM document_types')) as {
      id: string;
      name: string;
      nameKey: string | null;
    }[];
    const keyed = new Map<string, string>();
    for (const type of types) if (type.nameKey !== null) keyed.set(type.nameKey, type.name);
    const clashes: string[] = [];
    for (const type of types.filter((candidate) => candidate.nameKey === null)) {
      const key = identityKey(type.name);
      const holder = keyed.get(key);
      if (holder !== undefined) clashes.push(`${JSON.stringify(holder)}, ${JSON.stringify(type.name)}`);
      keyed.set(key, type.name);
    }
    if (clashes.length) {
      throw new Error(
        'DocumentTypeNameKeysRequired: these document types have the same name ignoring case and Unicode ' +
          `form; rename all but one of each group, then run the migrations again: ${clashes.join('; ')}.`,
      );
    }
    for (const type of types.filter((candidate) => candidate.nameKey === null)) {
      await queryRunner.query('UPDATE document_types SET nameKey = ? WHERE id = ?', [identityKey(type.name), type.id]);
    }
    await setNullable(queryRunner, false);
    await restoreCanonicalForms(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await setNullable(queryRunner, true);
    await restoreCanonicalForms(queryRunner);
  }
}

/**
 * Changes only the nullability: the new column is the loaded one with isNullable changed. A column
 * built from scratch would lack what TypeORM read (on MySQL it reports the unique index as
 * isUnique, and changeColumn drops the index when the new column says otherwise).
 */
async function setNullable(queryRunner: QueryRunner, isNullable: boolean): Promise<void> {
  const table = await queryRunner.getTable('document_types');
  const column = table?.findColumnByName('nameKey');
  if (!table || !column) throw new Error('DocumentTypeNameKeysRequired: document_types.nameKey does not exist.');
  const changed = column.clone();
  changed.isNullable = isNullable;
  await queryRunner.changeColumn(table, column, changed);
}

/** TypeORM changes a column on SQLite by rebuilding the table, which drops its triggers. */
async function restoreCanonicalForms(queryRunner: QueryRunner): Promise<void> {
  await dropCanonicalFormTriggers(queryRunner, 'document_types');
  await createCanonicalFormTriggers(queryRunner, { table: 'document_types', ids: ['id'], timestamps: ['createdAt'] });
}
