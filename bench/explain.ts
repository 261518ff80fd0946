import type { BenchConfig } from './config.js';
import { adminConnection } from './load-mysql.js';
import { documentWithCallerSql } from './documents/doc-statements.js';
import {
  notificationCountStatement,
  notificationIdsStatement,
  notificationPageStatement,
  type NotificationListFilters,
} from './notification-list-statements.js';
import { AUTH_CONTEXT_SQL, USER_FOR_LOGIN_SQL } from '../src/users/users.sql.js';
import type { SqliteDatabase } from './sqlite.js';

export interface ExplainEntry {
  database: 'mysql' | 'sqlite';
  shape: string;
  sql: string;
  plan: string[];
  /** Rows/index entries actually read (MariaDB ANALYZE r_rows, summed over the plan's tables). */
  rowsRead?: number;
  flags: string[];
  /** A notification-list shape that scans a table/index or sorts more than the page. */
  fails: boolean;
}

interface AnalyzeRow {
  table: string | null;
  type: string | null;
  key: string | null;
  rows: number | null;
  r_rows?: number | string | null;
  Extra: string | null;
}

const LIST_SHAPE = /^list/;

/**
 * A keyset (cursor) seek must be bounded by the index on (createdAt, id); if the plan only uses
 * userId, the database steps over every newer entry of the user, like an OFFSET.
 */
export function keysetProblem(
  entry: Pick<ExplainEntry, 'database' | 'shape' | 'plan' | 'rowsRead'>,
): string | undefined {
  if (!/cursor|keyset/.test(entry.shape) || !/ ids|ids /.test(entry.shape)) return undefined;
  if (entry.database === 'sqlite') {
    return entry.plan.some((line) => /createdAt\s*[<(]|\(createdAt,id\)</.test(line))
      ? undefined
      : `keyset seek NOT bounded by the index (only userId is used: every newer entry is read): ${entry.plan.join(' | ')}`;
  }
  return (entry.rowsRead ?? 0) > 1000 ? `keyset seek read ${entry.rowsRead} index entries` : undefined;
}

/**
 * MariaDB: ANALYZE (runs the SELECT, reports estimated and actual rows) for SELECTs and EXPLAIN for
 * UPDATEs, on the exact SQL text the service sent (captured by the query proxy).
 */
export async function explainMysql(
  config: BenchConfig,
  statements: { shape: string; sql: string }[],
): Promise<ExplainEntry[]> {
  const connection = await adminConnection(config, config.mysqlDatabase);
  const entries: ExplainEntry[] = [];
  try {
    for (const { shape, sql } of statements) {
      const verb = sql.trimStart().slice(0, 6).toUpperCase();
      if (verb !== 'SELECT' && verb !== 'UPDATE') continue;
      const [rows] = (await connection.query(`${verb === 'SELECT' ? 'ANALYZE' : 'EXPLAIN'} ${sql}`)) as unknown as [
        AnalyzeRow[],
      ];
      const flags: string[] = [];
      let rowsRead = 0;
      let fails = false;
      const plan = rows.map((row) => {
        const read = row.r_rows === undefined || row.r_rows === null ? NaN : Number(row.r_rows);
        if (Number.isFinite(read)) rowsRead += read;
        const extra = row.Extra ?? '';
        // The deferred join's derived table holds only the page's ids: reading it whole is reading the page.
        const pageSized = /^<derived\d+>$/.test(row.table ?? '') && Number.isFinite(read) && read <= 101;
        if (row.type === 'ALL') {
          flags.push(pageSized ? `scan of the ${read}-row page (derived table)` : `FULL TABLE SCAN of ${row.table}`);
          if (!pageSized) fails = true;
        }
        if (row.type === 'index') {
          flags.push(`FULL INDEX SCAN of ${row.table} (${row.key})`);
          fails = true;
        }
        if (extra.includes('filesort')) {
          const bounded = Number.isFinite(read) && read <= 101 && /IN \(|JOIN \(SELECT/.test(sql);
          flags.push(bounded ? `filesort of the page's ${read} rows (bounded by limit)` : `FILESORT of ${row.table}`);
          if (!bounded) fails = true;
        }
        if (Number.isFinite(read) && read > 1000) flags.push(`reads ${Math.round(read)} index entries/rows`);
        return (
          `${row.table ?? '-'} type=${row.type ?? '-'} key=${row.key ?? '-'} est_rows=${row.rows ?? '-'}` +
          `${Number.isFinite(read) ? ` r_rows=${read}` : ''} ${extra}`.trimEnd()
        );
      });
      const keyset = keysetProblem({ database: 'mysql', shape, plan, rowsRead });
      if (keyset) {
        flags.push(keyset);
        fails = true;
      }
      entries.push({
        database: 'mysql',
        shape,
        sql,
        plan,
        rowsRead: verb === 'SELECT' ? rowsRead : undefined,
        flags,
        fails: fails && LIST_SHAPE.test(shape),
      });
    }
  } finally {
    await connection.end();
  }
  return entries;
}

/**
 * SQLite: EXPLAIN QUERY PLAN of the service's own statements (from the feature repositories'
 * statement modules), bound to the given ids: the list's count, its ids step alone (page 1, deep,
 * cursor) and the whole page statement (the deferred join the service sends).
 */
export function explainSqlite(
  db: SqliteDatabase,
  ids: { heavyUserId: string; typicalUserId: string; username: string; documentId: string; deepOffset: number },
): ExplainEntry[] {
  const shapes: { shape: string; sql: string; params: unknown[] }[] = [
    { shape: 'auth: user + roles by id', sql: AUTH_CONTEXT_SQL, params: [ids.typicalUserId] },
    { shape: 'login: user + roles by username', sql: USER_FOR_LOGIN_SQL, params: [ids.username] },
    {
      shape: 'update: document, caller and other participants',
      sql: documentWithCallerSql(true),
      params: [ids.documentId, ids.typicalUserId],
    },
  ];
  const add = (shape: string, [sql, params]: [string, unknown[]]) => shapes.push({ shape, sql, params });
  const filters: [string, NotificationListFilters][] = [
    ['no filter', {}],
    ['status', { status: 'pending' }],
    ['type', { type: 'push' }],
    ['unreadOnly', { unreadOnly: true }],
    ['status+type+unreadOnly', { status: 'pending', type: 'push', unreadOnly: true }],
  ];
  for (const [name, filter] of filters) {
    add(`list count (${name})`, notificationCountStatement(ids.heavyUserId, filter));
    add(`list ids page 1 (${name})`, notificationIdsStatement(ids.heavyUserId, filter, 21, 0));
  }
  add('list ids deep page', notificationIdsStatement(ids.heavyUserId, {}, 21, ids.deepOffset));
  const [firstPage, firstParams] = notificationIdsStatement(ids.heavyUserId, {}, 21, 0);
  const firstIds = db.prepare(firstPage).all(...firstParams) as { createdAt: string; id: string }[];
  const last = firstIds[firstIds.length - 2];
  add('list ids cursor (keyset seek)', notificationIdsStatement(ids.heavyUserId, {}, 21, 0, last));
  add('list page 1 (deferred join)', notificationPageStatement(ids.heavyUserId, {}, 21, 0));
  add('list deep page (deferred join)', notificationPageStatement(ids.heavyUserId, {}, 21, ids.deepOffset));
  return shapes.map(({ shape, sql, params }) => {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    // The deferred join's derived table (a co-routine or materialized subquery) holds only the page's ids.
    const derived = new Set(rows.map((row) => /^(?:CO-ROUTINE|MATERIALIZE) (\w+)/.exec(row.detail)?.[1]));
    const flags: string[] = [];
    let fails = false;
    for (const { detail } of rows) {
      const scanned = /^SCAN (\w+)/.exec(detail)?.[1];
      if (scanned && derived.has(scanned)) {
        flags.push(`scan of the page (derived table ${scanned})`);
      } else if (scanned) {
        flags.push(`FULL SCAN: ${detail}`);
        fails = true;
      }
      if (/TEMP B-TREE/.test(detail)) {
        const bounded = /JOIN \(SELECT/.test(sql);
        flags.push(bounded ? `sort of the page's rows (bounded by limit): ${detail}` : `SORT: ${detail}`);
        if (!bounded) fails = true;
      }
    }
    const plan = rows.map((row) => row.detail);
    const keyset = keysetProblem({ database: 'sqlite', shape, plan });
    if (keyset) {
      flags.push(keyset);
      fails = true;
    }
    return { database: 'sqlite' as const, shape, sql, plan, flags, fails: fails && LIST_SHAPE.test(shape) };
  });
}
