// Query plans of the document list shapes, built with the service's own statement builders
// (documents.sql.ts) for a typical user, and judged: a list page must not scan a table or index,
// nor sort base rows, nor read more than its parts' pages (parts x (offset + limit + 1)).
import type { BenchConfig } from '../config.js';
import type { ExplainEntry } from '../explain.js';
import { adminConnection } from '../load-mysql.js';
import type { SqliteDatabase } from '../sqlite.js';
import {
  documentCountStatement,
  documentPageStatement,
  type DocumentListFilters,
  type DocumentSort,
  type DocumentVisibility,
  type SqlDialect,
} from '../../src/documents/document-search.repository.js';
import { RARE_WORD, docProjectId, docUserId, memberProjects, type DocPlan } from './doc-datagen.js';

interface Shape {
  shape: string;
  statement: [string, unknown[]];
  /** Index entries a page may read (parts x rows per part); undefined: report only (counts, search). */
  pageBudget?: number;
}

const LIMIT = 20;

function shapes(dialect: SqlDialect, plan: DocPlan): Shape[] {
  const user = 1;
  const projectIds = memberProjects(plan, user)
    .map((p) => docProjectId(p))
    .sort();
  const visibility: DocumentVisibility = { all: false, userId: docUserId(user), projectIds };
  const page = (filters: DocumentListFilters, sort: DocumentSort) =>
    documentPageStatement(dialect, visibility, filters, sort, LIMIT + 1, 0);
  const byProject = { projectId: projectIds[0] };
  const search = { words: [RARE_WORD] };
  // The typical user's projects and uploads name fewer than MAX_SCOPED_DOCUMENTS (searchScopeEstimateStatement):
  // the service finds them by tokens; the other search shapes are what it does beyond.
  const byTokens = { ...visibility, byTokens: true };
  return [
    // Each member project is a part, plus the caller's uploads elsewhere.
    {
      shape: 'documents page 1 (typical user)',
      statement: page({}, '-updatedAt'),
      pageBudget: 2 * (projectIds.length + 1) * (LIMIT + 1),
    },
    { shape: 'documents count (typical user)', statement: documentCountStatement(dialect, visibility, {}) },
    {
      shape: 'documents page 1 by projectId',
      statement: page(byProject, '-updatedAt'),
      pageBudget: 2 * 2 * (LIMIT + 1),
    },
    { shape: 'documents count by projectId', statement: documentCountStatement(dialect, visibility, byProject) },
    ...(dialect === 'mysql'
      ? [
          {
            shape: `search q=${RARE_WORD} page 1 with total (by tokens)`,
            statement: documentPageStatement(dialect, byTokens, search, 'relevance', LIMIT + 1, 0),
          },
          {
            shape: `search q=${RARE_WORD} count (by tokens)`,
            statement: documentCountStatement(dialect, byTokens, search),
          },
        ]
      : []),
    { shape: `search q=${RARE_WORD} page 1`, statement: page(search, 'relevance') },
    { shape: `search q=${RARE_WORD} count`, statement: documentCountStatement(dialect, visibility, search) },
  ];
}

interface AnalyzeRow {
  id: number | null;
  select_type: string | null;
  table: string | null;
  type: string | null;
  key: string | null;
  r_rows?: number | string | null;
  Extra: string | null;
}

/** A base table of the schema (not a derived table or union result). */
const isBaseTable = (table: string | null) => table !== null && !table.startsWith('<');

export async function explainDocumentsMysql(config: BenchConfig, plan: DocPlan): Promise<ExplainEntry[]> {
  const connection = await adminConnection(config, config.mysqlDatabase);
  const entries: ExplainEntry[] = [];
  try {
    for (const { shape, statement, pageBudget } of shapes('mysql', plan)) {
      const [rows] = (await connection.query(`ANALYZE ${statement[0]}`, statement[1])) as unknown as [AnalyzeRow[]];
      const flags: string[] = [];
      let rowsRead = 0;
      for (const row of rows) {
        if (!isBaseTable(row.table)) continue;
        rowsRead += Number(row.r_rows ?? 0);
        if (row.type === 'ALL' || row.type === 'index')
          flags.push(`${row.table}: full ${row.type === 'ALL' ? 'table' : 'index'} scan`);
        if (pageBudget !== undefined && /filesort/i.test(row.Extra ?? ''))
          flags.push(`${row.table}: filesort of base rows`);
      }
      if (pageBudget !== undefined && rowsRead > pageBudget)
        flags.push(`reads ${rowsRead} rows for a page (budget ${pageBudget})`);
      entries.push({
        database: 'mysql',
        shape,
        sql: statement[0],
        plan: rows.map(
          (row) =>
            `${row.id ?? '-'} ${row.select_type ?? ''} ${row.table ?? '-'} type=${row.type ?? '-'} key=${row.key ?? '-'} r_rows=${row.r_rows ?? '-'} ${row.Extra ?? ''}`,
        ),
        rowsRead,
        flags,
        fails: pageBudget !== undefined && flags.length > 0,
      });
    }
  } finally {
    await connection.end();
  }
  return entries;
}

export function explainDocumentsSqlite(db: SqliteDatabase, plan: DocPlan): ExplainEntry[] {
  return shapes('sqlite', plan).map(({ shape, statement, pageBudget }) => {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${statement[0]}`).all(...statement[1]) as { detail: string }[];
    const lines = rows.map((row) => row.detail);
    const flags: string[] = [];
    let previous = '';
    for (const line of lines) {
      // "SCAN d" (the table) or "SCAN d USING [COVERING] INDEX" (a whole index) reads everything; an
      // FTS5 MATCH shows as "SCAN f VIRTUAL TABLE INDEX", which is the full-text index's own lookup.
      if (/^SCAN (d|documents|s)\b/.test(line) && !line.includes('VIRTUAL TABLE')) flags.push(`scan: ${line}`);
      // A sort right after reading documents sorts base rows; after "SCAN p<n>" (a part's page,
      // at most offset + limit rows already read in order) it only merges the parts' pages.
      if (
        pageBudget !== undefined &&
        line.includes('USE TEMP B-TREE FOR ORDER BY') &&
        /^(SEARCH|SCAN) d\b/.test(previous)
      ) {
        flags.push(`sorts base rows: ${previous}`);
      }
      if (!/^(USE TEMP|LEFT|RIGHT|MERGE|CO-ROUTINE|COMPOUND)/.test(line)) previous = line;
    }
    return {
      database: 'sqlite' as const,
      shape,
      sql: statement[0],
      plan: lines,
      flags,
      fails: pageBudget !== undefined && flags.length > 0,
    };
  });
}
