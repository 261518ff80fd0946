import type { BenchConfig } from './config.js';
import { adminConnection } from './load-mysql.js';

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

/** A keyset (cursor) page must seek by (createdAt, id): reading many entries means it stepped over the newer ones. */
export function keysetProblem(entry: Pick<ExplainEntry, 'shape' | 'rowsRead'>): string | undefined {
  if (!/cursor/.test(entry.shape)) return undefined;
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
      const keyset = keysetProblem({ shape, rowsRead });
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
