// Loads the content bench's data: the documents bench's users, projects and documents (its loaders),
// then every document's extracted text into document_contents and into the service's full-text
// index (MariaDB: document_search.content in FT_document_search; SQLite: documents_fts.content),
// with bulk statements straight into the tables.
import type { BenchConfig } from '../config.js';
import { adminConnection, bulkInsertMysql, type LoadTimes } from '../load-mysql.js';
import { bulkInsertSqlite } from '../load-sqlite.js';
import { openSqlite } from '../sqlite.js';
import { log } from '../util.js';
import { docDocumentId, type DocPlan } from '../documents/doc-datagen.js';
import { createSqliteDocSchema, loadMysqlDocBase, loadMysqlDocuments, loadSqliteDocs } from '../documents/doc-load.js';
import type { ContentBenchConfig } from './content-config.js';
import { CONTENT_COLUMNS, CONTENT_WORD, contentRows, rareCount } from './content-datagen.js';

const seconds = (since: number) => (performance.now() - since) / 1000;

export async function loadMysqlContent(
  config: BenchConfig,
  plan: DocPlan,
  content: ContentBenchConfig,
  times: LoadTimes,
): Promise<void> {
  await loadMysqlDocBase(config, plan);
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    // The service's index, rebuilt once over the loaded text (as its migration creates it) instead of row by row.
    const [columns] = (await connection.query(
      "SELECT COLUMN_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'document_search' AND INDEX_NAME = 'FT_document_search' ORDER BY SEQ_IN_INDEX",
    )) as unknown as [{ name: string }[]];
    if (!columns.some((column) => column.name === 'content'))
      throw new Error('FT_document_search has no content column');
    await connection.query('ALTER TABLE document_search DROP INDEX FT_document_search');
    await loadMysqlDocuments(config, plan, 1, times);
    let t0 = performance.now();
    await bulkInsertMysql(
      connection,
      'document_contents',
      CONTENT_COLUMNS,
      contentRows(plan, content.textChars, content.rarePerMille),
      {
        batch: 100,
        total: plan.doc.rows,
        label: 'document_contents',
        commitRows: 5_000,
      },
    );
    times['document_contents'] = {
      rows: plan.doc.rows,
      seconds: seconds(t0),
      rowsPerSecond: plan.doc.rows / seconds(t0),
    };
    t0 = performance.now();
    const chunk = 10_000;
    for (let start = 0; start < plan.doc.rows; start += chunk) {
      await connection.query(
        'UPDATE document_search s JOIN document_contents c ON c.documentId = s.documentId AND c.version = 1 ' +
          'SET s.content = JSON_UNQUOTE(c.text) WHERE s.documentId BETWEEN ? AND ?',
        [docDocumentId(start), docDocumentId(Math.min(plan.doc.rows, start + chunk) - 1)],
      );
    }
    log(`  document_search.content filled: ${seconds(t0).toFixed(1)} s`);
    t0 = performance.now();
    // A rebuild first: re-adding the index over rows written while it was dropped, without one, gave an
    // index whose words pointed at no row (MariaDB 10.11; bench/README.md, Content).
    await connection.query('ALTER TABLE document_search FORCE');
    // As the migrations create it: without stop words.
    await connection.query('SET SESSION innodb_ft_enable_stopword = OFF');
    await connection.query(
      `ALTER TABLE document_search ADD FULLTEXT INDEX FT_document_search (${columns.map((column) => column.name).join(', ')})`,
    );
    await connection.query('ANALYZE TABLE document_search, document_contents');
    times['FT_document_search build'] = {
      rows: plan.doc.rows,
      seconds: seconds(t0),
      rowsPerSecond: plan.doc.rows / seconds(t0),
    };
    log(
      `  FT_document_search built over ${columns.map((column) => column.name).join(', ')}: ${seconds(t0).toFixed(1)} s`,
    );
  } finally {
    await connection.end();
  }
}

export async function loadSqliteContent(
  config: BenchConfig,
  plan: DocPlan,
  content: ContentBenchConfig,
  times: LoadTimes,
): Promise<void> {
  await createSqliteDocSchema(config);
  loadSqliteDocs(config, plan, 'base', times);
  loadSqliteDocs(config, plan, 1, times);
  const db = openSqlite(config.sqlitePath, { timeout: 30_000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const rows = plan.doc.rows;
    const took = bulkInsertSqlite(
      db,
      'document_contents',
      CONTENT_COLUMNS,
      contentRows(plan, content.textChars, content.rarePerMille),
      rows,
      'document_contents',
    );
    times['document_contents'] = { rows, seconds: took, rowsPerSecond: rows / took };
    const t0 = performance.now();
    // The FTS5 rows refilled with each current version's text, as the service's migration does.
    db.exec('BEGIN');
    db.exec('DELETE FROM documents_fts');
    db.exec(
      'INSERT INTO documents_fts (rowid, title, description, fileName, tags, content) ' +
        "SELECT d.rowid, d.title, d.description, d.fileName, d.tags, COALESCE((SELECT json_extract(c.text, '$') FROM document_contents c " +
        "WHERE c.documentId = d.id AND c.version = d.currentVersion AND c.status = 'indexed'), '') FROM documents d",
    );
    db.exec('COMMIT');
    const found = (
      db.prepare('SELECT COUNT(*) AS n FROM documents_fts WHERE documents_fts MATCH ?').get(`"${CONTENT_WORD}"`) as {
        n: number;
      }
    ).n;
    const expected = rareCount(rows, content.rarePerMille);
    if (found !== expected)
      throw new Error(`documents_fts finds ${found} documents with ${CONTENT_WORD}, not ${expected}`);
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
    times['documents_fts with content'] = { rows, seconds: seconds(t0), rowsPerSecond: rows / seconds(t0) };
    log(`  documents_fts refilled with the texts: ${seconds(t0).toFixed(1)} s`);
  } finally {
    db.close();
  }
}
