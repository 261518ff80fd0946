import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * Finding documents and the review workflow:
 * - statuses are draft, in_review, published, archived: the old `approved` becomes `published`;
 * - list indexes: (projectId, deletedAt, updatedAt, id) serves "documents of a project, newest
 *   first" (and replaces the projectId index the foreign key used), (uploadedBy, deletedAt,
 *   updatedAt, id) the caller's own uploads, (deletedAt, updatedAt, id) the everything list of
 *   documents:read, the trash and the purge;
 * - full-text search over title, description, fileName and tags, kept by triggers and unknown to
 *   TypeORM (its schema builder only looks at entity tables): on MySQL/MariaDB the table
 *   document_search with an InnoDB FULLTEXT index (default parser), one row per document; on SQLite
 *   the FTS5 table documents_fts with external content (documents, by rowid). InnoDB does not index
 *   words shorter than innodb_ft_min_token_size (3): the service leaves such words out of a query on
 *   both databases (but the last word, a prefix), so both answer alike.
 *
 * documents has no INTEGER PRIMARY KEY, so on SQLite its rowid may change when the table is
 * rebuilt (TypeORM's addColumn/changeColumn, VACUUM): a later migration that rebuilds documents
 * must call restoreDocumentSearch() (it recreates the triggers and rebuilds the index); since
 * DocumentSearchScope (1763800000032) changed the MySQL table and triggers, call that migration's.
 */
const SEARCH_COLUMNS = ['title', 'description', 'fileName', 'tags'] as const;

const LIST_INDEXES = [
  new TableIndex({ name: 'IDX_documents_project_list', columnNames: ['projectId', 'deletedAt', 'updatedAt', 'id'] }),
  new TableIndex({ name: 'IDX_documents_uploader_list', columnNames: ['uploadedBy', 'deletedAt', 'updatedAt', 'id'] }),
  new TableIndex({ name: 'IDX_documents_deleted_list', columnNames: ['deletedAt', 'updatedAt', 'id'] }),
];
const OLD_INDEXES = [
  new TableIndex({ name: 'IDX_documents_projectId', columnNames: ['projectId'] }),
  new TableIndex({ name: 'IDX_documents_uploadedBy', columnNames: ['uploadedBy'] }),
];

export const DOCUMENT_SEARCH_TRIGGERS = {
  mysql: ['trg_documents_search_insert', 'trg_documents_search_update'],
  sqlite: ['trg_documents_fts_delete', 'trg_documents_fts_insert', 'trg_documents_fts_update'],
} as const;

/** (Re)creates the search triggers and fills the search index from the documents table. */
export async function restoreDocumentSearch(queryRunner: QueryRunner): Promise<void> {
  const list = SEARCH_COLUMNS.join(', ');
  const values = (prefix: string) => SEARCH_COLUMNS.map((column) => `${prefix}.${column}`).join(', ');
  if (isMysql(queryRunner)) {
    for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
    await queryRunner.query('DELETE FROM document_search');
    await queryRunner.query(`INSERT INTO document_search (documentId, ${list}) SELECT id, ${list} FROM documents`);
    await queryRunner.query(
      `CREATE TRIGGER trg_documents_search_insert AFTER INSERT ON documents FOR EACH ROW ` +
        `INSERT INTO document_search (documentId, ${list}) VALUES (NEW.id, ${values('NEW')})`,
    );
    // Only when a searched column changed: other writes (rowVersion, status...) leave the FULLTEXT index alone.
    await queryRunner.query(
      `CREATE TRIGGER trg_documents_search_update AFTER UPDATE ON documents FOR EACH ROW ` +
        `UPDATE document_search SET ${SEARCH_COLUMNS.map((column) => `${column} = NEW.${column}`).join(', ')} ` +
        `WHERE documentId = NEW.id AND NOT (${SEARCH_COLUMNS.map((column) => `NEW.${column} <=> OLD.${column}`).join(' AND ')})`,
    );
    // Deletes cascade through the foreign key.
    return;
  }
  for (const name of DOCUMENT_SEARCH_TRIGGERS.sqlite) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
  await queryRunner.query(`INSERT INTO documents_fts (documents_fts) VALUES ('rebuild')`);
  const remove = `INSERT INTO documents_fts (documents_fts, rowid, ${list}) VALUES ('delete', OLD.rowid, ${values('OLD')});`;
  const add = `INSERT INTO documents_fts (rowid, ${list}) VALUES (NEW.rowid, ${values('NEW')});`;
  await queryRunner.query(`CREATE TRIGGER trg_documents_fts_insert AFTER INSERT ON documents BEGIN ${add} END`);
  await queryRunner.query(`CREATE TRIGGER trg_documents_fts_delete AFTER DELETE ON documents BEGIN ${remove} END`);
  await queryRunner.query(
    `CREATE TRIGGER trg_documents_fts_update AFTER UPDATE OF ${list} ON documents BEGIN ${remove} ${add} END`,
  );
}

export class DocumentSearchAndWorkflow1763800000018 implements MigrationInterface {
  name = 'DocumentSearchAndWorkflow1763800000018';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE documents SET status = 'published' WHERE status = 'approved'`);
    for (const index of LIST_INDEXES) await queryRunner.createIndex('documents', index);
    const existing = new Set((await queryRunner.getTable('documents'))?.indices.map((index) => index.name));
    for (const index of OLD_INDEXES)
      if (existing.has(index.name)) await queryRunner.dropIndex('documents', index.name!);

    if (isMysql(queryRunner)) {
      // An index created without stop words indexes "the", "about", "with"... too (the setting is kept
      // with the index), so every word of a query can be found, as on SQLite.
      await queryRunner.query('SET SESSION innodb_ft_enable_stopword = OFF');
      await queryRunner.query(
        `CREATE TABLE document_search (
           documentId varchar(36) NOT NULL PRIMARY KEY,
           title varchar(255) NOT NULL,
           description text NOT NULL,
           fileName varchar(255) NOT NULL,
           tags text NOT NULL,
           FULLTEXT INDEX FT_document_search (${SEARCH_COLUMNS.join(', ')}),
           CONSTRAINT FK_document_search_document FOREIGN KEY (documentId) REFERENCES documents (id) ON DELETE CASCADE
         ) ENGINE=InnoDB`,
      );
      await queryRunner.query('SET SESSION innodb_ft_enable_stopword = ON');
    } else {
      await queryRunner.query(
        `CREATE VIRTUAL TABLE documents_fts USING fts5(${SEARCH_COLUMNS.join(', ')}, ` +
          `content='documents', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`,
      );
    }
    await restoreDocumentSearch(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) {
      for (const name of DOCUMENT_SEARCH_TRIGGERS.mysql) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
      await queryRunner.query('DROP TABLE document_search');
    } else {
      for (const name of DOCUMENT_SEARCH_TRIGGERS.sqlite) await queryRunner.query(`DROP TRIGGER IF EXISTS ${name}`);
      await queryRunner.query('DROP TABLE documents_fts');
    }
    for (const index of OLD_INDEXES) await queryRunner.createIndex('documents', index);
    for (const index of LIST_INDEXES) await queryRunner.dropIndex('documents', index.name!);
    await queryRunner.query(`UPDATE documents SET status = 'approved' WHERE status = 'published'`);
  }
}
