import 'reflect-metadata';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '../src/data-source.js';
import type { BenchConfig } from './config.js';
import {
  DOCUMENT_COLUMNS,
  PARTICIPANT_COLUMNS,
  DOCUMENT_TYPE_COLUMNS,
  NOTIFICATION_COLUMNS,
  PROJECT_COLUMNS,
  PROJECT_MEMBER_COLUMNS,
  ROLE_COLUMNS,
  USER_COLUMNS,
  USER_ROLE_COLUMNS,
  documentRows,
  participantRows,
  documentTypeRows,
  notificationRows,
  projectMemberRows,
  projectRows,
  roleRows,
  userRoleRows,
  useRoleIds,
  userRows,
  type DataPlan,
  type Row,
} from './datagen.js';
import type { LoadTimes } from './load-mysql.js';
import { openSqlite, type SqliteDatabase } from './sqlite.js';
import { log } from './util.js';

export function removeSqlite(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

export async function createSqliteSchema(config: BenchConfig): Promise<void> {
  mkdirSync(dirname(config.sqlitePath), { recursive: true });
  removeSqlite(config.sqlitePath);
  const dataSource = new DataSource(
    appDataSourceOptions({ connection: { type: 'sqlite', path: config.sqlitePath }, timeoutMs: 30_000 }),
  );
  await dataSource.initialize();
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  await dataSource.destroy();
  log(`SQLite: ${config.sqlitePath} created, migrations applied: ${applied.map((m) => m.name).join(', ')}`);
}

const ROWS_PER_STATEMENT = 50;

/** Multi-row INSERTs in big transactions; logs progress and answers the seconds it took. */
export function bulkInsertSqlite(
  db: SqliteDatabase,
  table: string,
  columns: string[],
  rows: Iterable<Row>,
  total = 0,
  label = table,
): number {
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  const many = db.prepare(head + Array.from({ length: ROWS_PER_STATEMENT }, () => tuple).join(','));
  const one = db.prepare(head + tuple);
  const started = performance.now();
  let lastReport = started;
  let done = 0;
  let buffer: (string | number | null)[] = [];
  let buffered = 0;
  db.exec('BEGIN');
  for (const row of rows) {
    for (const value of row) buffer.push(value);
    if (++buffered === ROWS_PER_STATEMENT) {
      many.run(...buffer);
      buffer = [];
      buffered = 0;
      done += ROWS_PER_STATEMENT;
      if (done % 100_000 === 0) {
        db.exec('COMMIT');
        db.exec('BEGIN');
      }
      const now = performance.now();
      if (now - lastReport > 3000) {
        lastReport = now;
        const rate = done / ((now - started) / 1000);
        log(
          `  ${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} rows, ` +
            `${Math.round(rate).toLocaleString('en-US')} rows/s, ~${Math.ceil((total - done) / rate)} s left`,
        );
      }
    }
  }
  for (let i = 0; i < buffered; i++) one.run(...buffer.slice(i * columns.length, (i + 1) * columns.length));
  done += buffered;
  db.exec('COMMIT');
  const seconds = (performance.now() - started) / 1000;
  log(
    `  ${label}: ${done.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s (${Math.round(done / seconds).toLocaleString('en-US')} rows/s)`,
  );
  return seconds;
}

/** Everything at once (both stages), with the service's triggers maintaining notification_counts. */
export function loadSqlite(config: BenchConfig, plan: DataPlan, times: LoadTimes): void {
  const db = openSqlite(config.sqlitePath, { timeout: 30_000 });
  try {
    db.pragma('journal_mode = WAL');
    // Throw-away file: no fsync while loading (the service opens it with its own settings).
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = ON');
    const step = (name: string, rows: number, seconds: number) =>
      (times[name] = { rows, seconds, rowsPerSecond: rows / seconds });
    const roles = () => db.prepare('SELECT id, name FROM roles').all() as { id: string; name: string }[];
    const missing = roleRows(new Map(roles().map((r) => [r.name, r.id])));
    if (missing.length) bulkInsertSqlite(db, 'roles', ROLE_COLUMNS, missing, missing.length, 'roles');
    useRoleIds(plan, roles());
    step('users', config.users, bulkInsertSqlite(db, 'users', USER_COLUMNS, userRows(plan), config.users, 'users'));
    bulkInsertSqlite(db, 'user_roles', USER_ROLE_COLUMNS, userRoleRows(plan), config.users, 'user_roles');
    bulkInsertSqlite(db, 'projects', PROJECT_COLUMNS, projectRows(plan), 20, 'projects');
    bulkInsertSqlite(
      db,
      'project_members',
      PROJECT_MEMBER_COLUMNS,
      projectMemberRows(plan),
      config.users,
      'project_members',
    );
    bulkInsertSqlite(db, 'document_types', DOCUMENT_TYPE_COLUMNS, documentTypeRows(plan), 8, 'document_types');
    step(
      'documents',
      config.documents,
      bulkInsertSqlite(db, 'documents', DOCUMENT_COLUMNS, documentRows(plan), config.documents, 'documents'),
    );
    bulkInsertSqlite(
      db,
      'document_participants',
      PARTICIPANT_COLUMNS,
      participantRows(plan),
      config.documents,
      'document_participants',
    );
    for (const stage of [1, 2] as const) {
      const total = stage === 1 ? plan.stage1Total : plan.stage2Total;
      if (total === 0) continue;
      step(
        `notifications stage ${stage} (triggers on)`,
        total,
        bulkInsertSqlite(
          db,
          'notifications',
          NOTIFICATION_COLUMNS,
          notificationRows(plan, stage),
          total,
          `notifications stage ${stage}`,
        ),
      );
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    const count = db.prepare('SELECT COUNT(*) AS n FROM notifications').get() as { n: number };
    const sum = db.prepare('SELECT COALESCE(SUM(total),0) AS n FROM notification_counts').get() as { n: number };
    log(
      `  SQLite check: COUNT(*)=${count.n}, SUM(notification_counts.total)=${sum.n} ${count.n === sum.n ? '(exact)' : '(MISMATCH)'}`,
    );
  } finally {
    db.close();
  }
}
