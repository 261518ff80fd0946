import { randomUUID } from 'node:crypto';
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { DOCUMENT_SEARCH_TRIGGERS } from './1763800000018-DocumentSearchAndWorkflow.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/** jobs, document_contents, document_previews and the search index's content column (docs/content.md, "Schema"). */
const SEARCH_COLUMNS = ['title', 'description', 'fileName', 'tags'] as const;
const FTS_OPTIONS = `tokenize='unicode61 remove_diacritics 2'`;

/** SQLite: (re)creates documents_fts's triggers and refills it, keeping each current version's indexed text. */
export async function restoreSqliteSearch(queryRunner: QueryRunner): Promise<void> {
  const list = SEARCH_COLUMNS.join(', ');
  const values = (prefix: string) => SEARCH_COLUMNS.map((column) => `${prefix}.${column}`).join(', ');
  for (const name of DOCUMENT_SEARCH_TRIGGERS.sqlite) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
  await queryRunner.query('DELETE FROM documents_fts');
  await queryRunner.query(
    `INSERT INTO documents_fts (rowid, ${list}, content) SELECT d.rowid, ${values('d')}, ` +
      `COALESCE((SELECT json_extract(c.text, '$') FROM document_contents c WHERE c.documentId = d.id ` +
      `AND c.version = d.currentVersion AND c.status = 'indexed'), '') FROM documents d`,
  );
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_fts_insert AFTER INSERT ON documents BEGIN ` +
      `INSERT INTO documents_fts (rowid, ${list}, content) VALUES (NEW.rowid, ${values('NEW')}, ''); END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_fts_delete AFTER DELETE ON documents BEGIN ` +
      `DELETE FROM documents_fts WHERE rowid = OLD.rowid; END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_fts_update AFTER UPDATE OF ${list} ON documents BEGIN ` +
      `UPDATE documents_fts SET ${SEARCH_COLUMNS.map((column) => `${column} = NEW.${column}`).join(', ')} ` +
      `WHERE rowid = NEW.rowid; END`,
  );
}

async function createFulltextIndex(queryRunner: QueryRunner, columns: readonly string[]): Promise<void> {
  // Without stop words, as DocumentSearchAndWorkflow: the setting is kept with the index.
  await queryRunner.query('SET SESSION innodb_ft_enable_stopword = OFF');
  try {
    await queryRunner.query(
      `ALTER TABLE document_search ADD FULLTEXT INDEX FT_document_search (${columns.join(', ')})`,
    );
  } finally {
    await queryRunner.query('SET SESSION innodb_ft_enable_stopword = ON');
  }
}

export class ContentExtraction1763800000120 implements MigrationInterface {
  name = 'ContentExtraction1763800000120';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'jobs',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '64' },
          { name: 'subject', type: 'varchar', length: '128' },
          { name: 'payload', type: 'json' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'runAfter', type: 'datetime', precision: 3 },
          { name: 'claimedBy', type: 'varchar', length: '64', isNullable: true },
          { name: 'leaseUntil', type: 'datetime', precision: 3, isNullable: true },
          { name: 'lastError', type: 'varchar', length: '500', isNullable: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'updatedAt', type: 'datetime', precision: 3 },
        ],
        indices: [
          new TableIndex({ name: 'IDX_jobs_due', columnNames: ['status', 'runAfter'] }),
          new TableIndex({ name: 'IDX_jobs_subject', columnNames: ['kind', 'subject'] }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'jobs',
      ids: ['id'],
      timestamps: ['runAfter', 'createdAt', 'updatedAt'],
      nullableTimestamps: ['leaseUntil'],
    });
    await queryRunner.createTable(
      new Table({
        name: 'document_contents',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'pages', type: 'integer', isNullable: true },
          { name: 'characters', type: 'integer', isNullable: true },
          { name: 'extractedAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'error', type: 'varchar', length: '500', isNullable: true },
          { name: 'text', type: 'json', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'IDX_document_contents_status', columnNames: ['status'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_contents_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_contents',
      ids: ['documentId'],
      timestamps: [],
      nullableTimestamps: ['extractedAt'],
    });
    await queryRunner.createTable(
      new Table({
        name: 'document_previews',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          { name: 'size', type: 'varchar', length: '8', isPrimary: true },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'bytes', type: 'integer' },
        ],
        indices: [new TableIndex({ name: 'IDX_document_previews_sha256', columnNames: ['sha256'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_previews_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, { table: 'document_previews', ids: ['documentId'], timestamps: [] });

    if (isMysql(queryRunner)) {
      await queryRunner.query(
        'ALTER TABLE document_search DROP INDEX FT_document_search, ADD COLUMN content MEDIUMTEXT NULL',
      );
      await createFulltextIndex(queryRunner, [...SEARCH_COLUMNS, 'scope', 'content']);
    } else {
      for (const name of DOCUMENT_SEARCH_TRIGGERS.sqlite) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
      await queryRunner.query('DROP TABLE documents_fts');
      await queryRunner.query(
        `CREATE VIRTUAL TABLE documents_fts USING fts5(${SEARCH_COLUMNS.join(', ')}, content, ${FTS_OPTIONS})`,
      );
      await restoreSqliteSearch(queryRunner);
    }
    await queueCurrentVersions(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) {
      await queryRunner.query('ALTER TABLE document_search DROP INDEX FT_document_search, DROP COLUMN content');
      await createFulltextIndex(queryRunner, [...SEARCH_COLUMNS, 'scope']);
    } else {
      for (const name of DOCUMENT_SEARCH_TRIGGERS.sqlite) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
      await queryRunner.query('DROP TABLE documents_fts');
      await queryRunner.query(
        `CREATE VIRTUAL TABLE documents_fts USING fts5(${SEARCH_COLUMNS.join(', ')}, ` +
          `content='documents', content_rowid='rowid', ${FTS_OPTIONS})`,
      );
      const { restoreDocumentSearch } = await import('./1763800000018-DocumentSearchAndWorkflow.js');
      await restoreDocumentSearch(queryRunner);
    }
    await dropCanonicalFormTriggers(queryRunner, 'document_previews');
    await queryRunner.dropTable('document_previews');
    await dropCanonicalFormTriggers(queryRunner, 'document_contents');
    await queryRunner.dropTable('document_contents');
    await dropCanonicalFormTriggers(queryRunner, 'jobs');
    await queryRunner.dropTable('jobs');
  }
}

/** One content.extract job per document's current version with stored bytes. */
async function queueCurrentVersions(queryRunner: QueryRunner): Promise<void> {
  const rows = (await queryRunner.query(
    'SELECT id, currentVersion FROM documents WHERE sha256 IS NOT NULL ORDER BY id',
  )) as { id: string; currentVersion: number }[];
  const now = isMysql(queryRunner) ? new Date() : new Date().toISOString().replace('T', ' ').slice(0, 23);
  for (let start = 0; start < rows.length; start += 200) {
    const batch = rows.slice(start, start + 200);
    await queryRunner.query(
      'INSERT INTO jobs (id, kind, subject, payload, status, attempts, runAfter, createdAt, updatedAt) VALUES ' +
        batch.map(() => "(?, 'content.extract', ?, ?, 'queued', 0, ?, ?, ?)").join(', '),
      batch.flatMap((row) => [
        randomUUID(),
        `${row.id}:${row.currentVersion}`,
        JSON.stringify({ documentId: row.id, version: row.currentVersion }),
        now,
        now,
        now,
      ]),
    );
  }
}
