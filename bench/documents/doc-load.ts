// Loads the documents bench's data through the service's own migrations (so the FULLTEXT / FTS5
// triggers and the list indexes are the service's) with multi-row INSERTs, triggers in place.
import type { BenchConfig } from '../config.js';
import { adminConnection, bulkInsertMysql, createMysqlSchema, type LoadTimes } from '../load-mysql.js';
import { bulkInsertSqlite, createSqliteSchema, removeSqlite } from '../load-sqlite.js';
import { openSqlite } from '../sqlite.js';
import type { Row } from '../datagen.js';
import { log } from '../util.js';
import type { DocBenchConfig } from './doc-config.js';
import {
  DOC_DOCUMENT_COLUMNS,
  DOC_FIELD_COLUMNS,
  DOC_FIELD_VALUE_COLUMNS,
  DOC_MEMBER_COLUMNS,
  DOC_PROJECT_COLUMNS,
  DOC_TYPE_COLUMNS,
  DOC_USER_COLUMNS,
  DOC_USER_ROLE_COLUMNS,
  docDocumentRows,
  docFieldRows,
  docFieldValueRows,
  fieldDocumentsInStage,
  docMemberRows,
  docProjectRows,
  docTypeRows,
  docUserRoleRows,
  docUserRows,
  documentsInStage,
  type DocPlan,
} from './doc-datagen.js';

/** The notification bench's settings pointed at the documents phase's own database and file. */
export function docDatabaseConfig(config: BenchConfig, doc: DocBenchConfig): BenchConfig {
  return { ...config, mysqlDatabase: doc.mysqlDatabase, sqlitePath: doc.sqlitePath };
}

/**
 * The rows are loaded in bulk, not through the service: document_counts (kept by the service's
 * writes) is filled afterwards from the documents, as the DocumentCounts migration does.
 */
const REFILL_COUNTS = [
  'DELETE FROM document_counts',
  `INSERT INTO document_counts (projectId, uploadedBy, status, documentTypeId, total)
   SELECT projectId, '', status, documentTypeId, COUNT(*) FROM documents WHERE deletedAt IS NULL GROUP BY projectId, status, documentTypeId
   UNION ALL
   SELECT projectId, '', '', '', COUNT(*) FROM documents WHERE deletedAt IS NULL GROUP BY projectId
   UNION ALL
   SELECT projectId, uploadedBy, status, documentTypeId, COUNT(*) FROM documents WHERE deletedAt IS NULL GROUP BY projectId, uploadedBy, status, documentTypeId
   UNION ALL
   SELECT projectId, uploadedBy, '', '', COUNT(*) FROM documents WHERE deletedAt IS NULL GROUP BY projectId, uploadedBy`,
];

function record(times: LoadTimes, step: string, rows: number, seconds: number): void {
  times[step] = { rows, seconds, rowsPerSecond: rows / seconds };
}

/** Schema, users, projects, memberships, types (not the documents: see loadMysqlDocuments). */
export async function loadMysqlDocBase(config: BenchConfig, plan: DocPlan): Promise<void> {
  await createMysqlSchema(config);
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    const [roles] = (await connection.query(
      "SELECT id FROM roles WHERE name IN ('user', 'editor') ORDER BY name DESC",
    )) as unknown as [{ id: string }[]];
    const insert = (table: string, columns: string[], rows: Iterable<Row>, total: number) =>
      bulkInsertMysql(connection, table, columns, rows, { batch: 1000, total, label: table });
    const users = plan.doc.users + 2;
    await insert('users', DOC_USER_COLUMNS, docUserRows(plan), users);
    await insert('user_roles', DOC_USER_ROLE_COLUMNS, docUserRoleRows(plan, roles[0].id, roles[1].id), users);
    await insert('projects', DOC_PROJECT_COLUMNS, docProjectRows(plan), plan.doc.projects);
    await insert('project_members', DOC_MEMBER_COLUMNS, docMemberRows(plan), plan.doc.projects);
    await insert('document_types', DOC_TYPE_COLUMNS, docTypeRows(plan), 8);
    await insert('document_fields', DOC_FIELD_COLUMNS, docFieldRows(plan), 2);
  } finally {
    await connection.end();
  }
}

/** One stage of documents, the service's FULLTEXT trigger filling document_search row by row (as production does). */
export async function loadMysqlDocuments(config: BenchConfig, plan: DocPlan, stage: 1 | 2, times: LoadTimes) {
  const total = documentsInStage(plan, stage);
  if (total === 0) return;
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    const step = `documents stage ${stage} (FULLTEXT trigger on)`;
    const started = performance.now();
    await bulkInsertMysql(connection, 'documents', DOC_DOCUMENT_COLUMNS, docDocumentRows(plan, stage), {
      batch: 1000,
      total,
      label: step,
      // Smaller transactions: the FULLTEXT index caches a transaction's words until COMMIT.
      commitRows: 20_000,
    });
    record(times, step, total, (performance.now() - started) / 1000);
    const valueStep = `document_field_values stage ${stage}`;
    const values = 2 * fieldDocumentsInStage(plan, stage);
    const valuesStarted = performance.now();
    await bulkInsertMysql(
      connection,
      'document_field_values',
      DOC_FIELD_VALUE_COLUMNS,
      docFieldValueRows(plan, stage),
      {
        batch: 1000,
        total: values,
        label: valueStep,
        commitRows: 50_000,
      },
    );
    record(times, valueStep, values, (performance.now() - valuesStarted) / 1000);
    const counted = performance.now();
    for (const sql of REFILL_COUNTS) await connection.query(sql);
    log(`  document_counts refilled: ${((performance.now() - counted) / 1000).toFixed(1)} s`);
    const analyzed = performance.now();
    await connection.query(
      'ANALYZE TABLE documents, document_search, document_field_values, project_members, document_counts',
    );
    log(`  ANALYZE TABLE: ${((performance.now() - analyzed) / 1000).toFixed(1)} s`);
  } finally {
    await connection.end();
  }
}

export async function createSqliteDocSchema(config: BenchConfig): Promise<void> {
  removeSqlite(config.sqlitePath);
  await createSqliteSchema(config);
}

/** Base rows or one stage of documents (with the FTS5 triggers in place). */
export function loadSqliteDocs(config: BenchConfig, plan: DocPlan, part: 'base' | 1 | 2, times: LoadTimes): void {
  const db = openSqlite(config.sqlitePath, { timeout: 30_000 });
  try {
    db.pragma('journal_mode = WAL');
    // Throw-away file: no fsync while loading (the service opens it with its own settings).
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = ON');
    if (part === 'base') {
      const role = (name: string) => (db.prepare('SELECT id FROM roles WHERE name = ?').get(name) as { id: string }).id;
      bulkInsertSqlite(db, 'users', DOC_USER_COLUMNS, docUserRows(plan));
      bulkInsertSqlite(db, 'user_roles', DOC_USER_ROLE_COLUMNS, docUserRoleRows(plan, role('user'), role('editor')));
      bulkInsertSqlite(db, 'projects', DOC_PROJECT_COLUMNS, docProjectRows(plan));
      bulkInsertSqlite(db, 'project_members', DOC_MEMBER_COLUMNS, docMemberRows(plan));
      bulkInsertSqlite(db, 'document_types', DOC_TYPE_COLUMNS, docTypeRows(plan));
      bulkInsertSqlite(db, 'document_fields', DOC_FIELD_COLUMNS, docFieldRows(plan));
      return;
    }
    const rows = documentsInStage(plan, part);
    const label = `documents stage ${part} (FTS5 trigger on)`;
    const seconds = bulkInsertSqlite(db, 'documents', DOC_DOCUMENT_COLUMNS, docDocumentRows(plan, part), rows, label);
    record(times, label, rows, seconds);
    const values = 2 * fieldDocumentsInStage(plan, part);
    const valueLabel = `document_field_values stage ${part}`;
    const valueSeconds = bulkInsertSqlite(
      db,
      'document_field_values',
      DOC_FIELD_VALUE_COLUMNS,
      docFieldValueRows(plan, part),
      values,
      valueLabel,
    );
    record(times, valueLabel, values, valueSeconds);
    for (const sql of REFILL_COUNTS) db.exec(sql);
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
