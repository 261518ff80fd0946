import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import {
  DOCUMENT_SEARCH_TRIGGERS,
  restoreDocumentSearch as restoreSearchBefore,
} from './1763800000018-DocumentSearchAndWorkflow.js';

/**
 * MariaDB/MySQL: the search finds a caller's documents inside the FULLTEXT index. Until now the
 * index answered every document with the word (≈ 5,000 for a word in 0.5% of 1,000,000), and each
 * was fetched by primary key to learn its project and trash state (≈ 6 page reads each: 36 ms of
 * the 40 ms a one-word search took, twice with the count), though a typical user may read ~50.
 * Now document_search also holds
 * - `scope`: two tokens, the document's project (`_p` + the id's 32 hex digits) and its uploader
 *   (`_u` + hex), in the FULLTEXT index with the text; the search requires one of the caller's
 *   projects' tokens or their own (`+word* +(_p… _p… _u…)`: exactly what they may read), so the
 *   index itself intersects and only visible rows are fetched. A search word never matches a
 *   token: words are letters, digits and marks, tokens start with `_`;
 * - `deletedAt`: the document's trash mark, so the fetched rows are filtered without `documents`.
 * Both are kept by the triggers, in the statement (so the transaction) of every documents write;
 * deletes still cascade through the foreign key. The relevance is the same words' MATCH on the
 * same index: the token is no search word, so each word's frequency and document count are as
 * before.
 *
 * SQLite (FTS5) is unchanged: its search is already fast, and this migration does nothing there.
 */
const TEXT_COLUMNS = ['title', 'description', 'fileName', 'tags'] as const;
const SCOPE = (row: 'NEW' | 'd') =>
  `CONCAT('_p', LOWER(REPLACE(${row}.projectId, '-', '')), ' _u', LOWER(REPLACE(${row}.uploadedBy, '-', '')))`;

/** (Re)creates the search triggers and refills the search index, as of this migration (see DocumentSearchAndWorkflow). */
export async function restoreDocumentSearch(queryRunner: QueryRunner): Promise<void> {
  if (!isMysql(queryRunner)) return restoreSearchBefore(queryRunner);
  for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
  await queryRunner.query('DELETE FROM document_search');
  await queryRunner.query(
    `INSERT INTO document_search (documentId, ${TEXT_COLUMNS.join(', ')}, deletedAt, scope) ` +
      `SELECT d.id, ${TEXT_COLUMNS.map((column) => `d.${column}`).join(', ')}, d.deletedAt, ${SCOPE('d')} FROM documents d`,
  );
  await createSearchTriggers(queryRunner);
}

/** MySQL: the triggers that keep document_search a copy of documents' searched columns, trash mark and project. */
async function createSearchTriggers(queryRunner: QueryRunner): Promise<void> {
  const text = TEXT_COLUMNS.join(', ');
  for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_search_insert AFTER INSERT ON documents FOR EACH ROW ` +
      `INSERT INTO document_search (documentId, ${text}, deletedAt, scope) ` +
      `VALUES (NEW.id, ${TEXT_COLUMNS.map((column) => `NEW.${column}`).join(', ')}, NEW.deletedAt, ${SCOPE('NEW')})`,
  );
  // Only when a copied column changed. InnoDB re-indexes a row's words only when an indexed column's
  // value changes, so a trash or restore (deletedAt alone) leaves the FULLTEXT index alone.
  const copied = [...TEXT_COLUMNS, 'deletedAt', 'projectId', 'uploadedBy'];
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_search_update AFTER UPDATE ON documents FOR EACH ROW ` +
      `UPDATE document_search SET ${TEXT_COLUMNS.map((column) => `${column} = NEW.${column}`).join(', ')}, ` +
      `deletedAt = NEW.deletedAt, scope = ${SCOPE('NEW')} ` +
      `WHERE documentId = NEW.id AND NOT (${copied.map((column) => `NEW.${column} <=> OLD.${column}`).join(' AND ')})`,
  );
}

/** Creates the FULLTEXT index over `columns` without stop words, as DocumentSearchAndWorkflow did. */
async function createFulltextIndex(queryRunner: QueryRunner, columns: readonly string[]): Promise<void> {
  // The setting is read when the index is created and kept with it; the session gets it back either way.
  await queryRunner.query('SET SESSION innodb_ft_enable_stopword = OFF');
  try {
    await queryRunner.query(
      `ALTER TABLE document_search ADD FULLTEXT INDEX FT_document_search (${columns.join(', ')})`,
    );
  } finally {
    await queryRunner.query('SET SESSION innodb_ft_enable_stopword = ON');
  }
}

export class DocumentSearchScope1763800000032 implements MigrationInterface {
  name = 'DocumentSearchScope1763800000032';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
    // Without the index while the rows are filled: one index build instead of a re-index per row.
    await queryRunner.query(
      'ALTER TABLE document_search DROP INDEX FT_document_search, ' +
        'ADD COLUMN deletedAt datetime(3) NULL, ADD COLUMN scope varchar(80) NOT NULL',
    );
    await queryRunner.query(
      `UPDATE document_search s JOIN documents d ON d.id = s.documentId SET s.deletedAt = d.deletedAt, s.scope = ${SCOPE('d')}`,
    );
    await createFulltextIndex(queryRunner, [...TEXT_COLUMNS, 'scope']);
    await createSearchTriggers(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
    await queryRunner.query(
      'ALTER TABLE document_search DROP INDEX FT_document_search, DROP COLUMN deletedAt, DROP COLUMN scope',
    );
    await createFulltextIndex(queryRunner, TEXT_COLUMNS);
    await restoreSearchBefore(queryRunner);
  }
}
