import 'reflect-metadata';
import mysql from 'mysql2/promise';
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
import { log } from './util.js';

export function mysqlUrl(config: BenchConfig, port = config.mysqlPort): string {
  const auth = config.mysqlPassword
    ? `${encodeURIComponent(config.mysqlUser)}:${encodeURIComponent(config.mysqlPassword)}`
    : encodeURIComponent(config.mysqlUser);
  return `mysql://${auth}@${config.mysqlHost}:${port}/${config.mysqlDatabase}`;
}

export function adminConnection(config: BenchConfig, database?: string): Promise<mysql.Connection> {
  return mysql.createConnection({
    host: config.mysqlHost,
    port: config.mysqlPort,
    user: config.mysqlUser,
    password: config.mysqlPassword,
    database,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
  });
}

/** Drops and recreates the bench database, then runs the service's own migrations (schema + triggers). */
export async function createMysqlSchema(config: BenchConfig): Promise<void> {
  const admin = await adminConnection(config);
  await admin.query(`DROP DATABASE IF EXISTS \`${config.mysqlDatabase}\``);
  await admin.query(`CREATE DATABASE \`${config.mysqlDatabase}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const dataSource = new DataSource(
    appDataSourceOptions({
      connection: {
        type: 'mysql',
        host: config.mysqlHost,
        port: config.mysqlPort,
        username: config.mysqlUser,
        password: config.mysqlPassword,
        database: config.mysqlDatabase,
      },
      timeoutMs: 30_000,
    }),
  );
  await dataSource.initialize();
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  await dataSource.destroy();
  log(
    `MariaDB: database ${config.mysqlDatabase} created, migrations applied: ${applied.map((m) => m.name).join(', ')}`,
  );
}

export async function dropMysql(config: BenchConfig): Promise<void> {
  const admin = await adminConnection(config);
  await admin.query(`DROP DATABASE IF EXISTS \`${config.mysqlDatabase}\``);
  await admin.end();
}

function literal(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

/**
 * Multi-row INSERTs of `batch` rows, committed every `commitRows` rows; the next statement is
 * built while the previous one executes. Returns rows/s.
 */
export async function bulkInsertMysql(
  connection: mysql.Connection,
  table: string,
  columns: string[],
  rows: Iterable<Row>,
  options: { batch: number; total: number; label: string; commitRows?: number },
): Promise<number> {
  const head = `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES `;
  const commitRows = options.commitRows ?? 100_000;
  const started = performance.now();
  let lastReport = started;
  let inflight: Promise<unknown> | undefined;
  let done = 0;
  let sinceCommit = 0;
  let parts: string[] = [];
  await connection.query('START TRANSACTION');
  const flush = async () => {
    if (parts.length === 0) return;
    const sql = head + parts.join(',');
    const count = parts.length;
    parts = [];
    if (inflight) await inflight;
    inflight = connection.query(sql);
    done += count;
    sinceCommit += count;
    if (sinceCommit >= commitRows) {
      await inflight;
      inflight = undefined;
      await connection.query('COMMIT');
      await connection.query('START TRANSACTION');
      sinceCommit = 0;
    }
    const now = performance.now();
    if (now - lastReport > 3000) {
      lastReport = now;
      const rate = done / ((now - started) / 1000);
      const eta = (options.total - done) / rate;
      log(
        `  ${options.label}: ${done.toLocaleString('en-US')}/${options.total.toLocaleString('en-US')} rows, ` +
          `${Math.round(rate).toLocaleString('en-US')} rows/s, ~${Math.ceil(eta)} s left`,
      );
    }
  };
  for (const row of rows) {
    parts.push(`(${row.map(literal).join(',')})`);
    if (parts.length >= options.batch) await flush();
  }
  await flush();
  if (inflight) await inflight;
  await connection.query('COMMIT');
  const seconds = (performance.now() - started) / 1000;
  const rate = done / seconds;
  log(
    `  ${options.label}: ${done.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')} rows/s)`,
  );
  return rate;
}

export interface LoadTimes {
  [step: string]: { rows: number; seconds: number; rowsPerSecond: number };
}

async function timed(times: LoadTimes, step: string, rows: number, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  times[step] = { rows, seconds, rowsPerSecond: rows / seconds };
}

/** Roles, users (+roles), projects, types and documents. */
export async function loadMysqlBase(config: BenchConfig, plan: DataPlan, times: LoadTimes): Promise<void> {
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    const batch = config.batch;
    const roles = async () =>
      ((await connection.query('SELECT id, name FROM roles')) as unknown as [{ id: string; name: string }[]])[0];
    const missing = roleRows(new Map((await roles()).map((r) => [r.name, r.id])));
    if (missing.length)
      await bulkInsertMysql(connection, 'roles', ROLE_COLUMNS, missing, {
        batch,
        total: missing.length,
        label: 'roles',
      });
    useRoleIds(plan, await roles());
    await timed(times, 'users', config.users, () =>
      bulkInsertMysql(connection, 'users', USER_COLUMNS, userRows(plan), {
        batch: 1000,
        total: config.users,
        label: 'users',
      }),
    );
    const userRoles = config.users + Math.floor((config.users + 4) / 10);
    await bulkInsertMysql(connection, 'user_roles', USER_ROLE_COLUMNS, userRoleRows(plan), {
      batch,
      total: userRoles,
      label: 'user_roles',
    });
    await bulkInsertMysql(connection, 'projects', PROJECT_COLUMNS, projectRows(plan), {
      batch,
      total: 20,
      label: 'projects',
    });
    await bulkInsertMysql(connection, 'project_members', PROJECT_MEMBER_COLUMNS, projectMemberRows(plan), {
      batch,
      total: config.users,
      label: 'project_members',
    });
    await bulkInsertMysql(connection, 'document_types', DOCUMENT_TYPE_COLUMNS, documentTypeRows(plan), {
      batch,
      total: 8,
      label: 'document_types',
    });
    await timed(times, 'documents', config.documents, () =>
      bulkInsertMysql(connection, 'documents', DOCUMENT_COLUMNS, documentRows(plan), {
        batch: 1000,
        total: config.documents,
        label: 'documents',
      }),
    );
    await bulkInsertMysql(connection, 'document_participants', PARTICIPANT_COLUMNS, participantRows(plan), {
      batch,
      total: config.documents,
      label: 'document_participants',
    });
  } finally {
    await connection.end();
  }
}

/** Notifications of one stage, with the notification_counts triggers in place (they maintain the totals). */
export async function loadMysqlNotifications(
  config: BenchConfig,
  plan: DataPlan,
  stage: 1 | 2,
  times: LoadTimes,
): Promise<void> {
  const total = stage === 1 ? plan.stage1Total : plan.stage2Total;
  if (total === 0) return;
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    await timed(times, `notifications stage ${stage} (triggers on)`, total, () =>
      bulkInsertMysql(connection, 'notifications', NOTIFICATION_COLUMNS, notificationRows(plan, stage), {
        batch: config.batch,
        total,
        label: `notifications stage ${stage}`,
      }),
    );
    const started = performance.now();
    await connection.query('ANALYZE TABLE users, user_roles, roles, documents, notifications, notification_counts');
    log(`  ANALYZE TABLE: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await connection.end();
  }
}

/** The trigger-maintained totals must equal COUNT(*) (checked globally and for the heavy user). */
export async function verifyMysqlCounts(
  config: BenchConfig,
  heavyUserId: string,
): Promise<{ ok: boolean; detail: string }> {
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    const [[a]] = (await connection.query('SELECT COUNT(*) AS n FROM notifications')) as unknown as [[{ n: number }]];
    const [[b]] = (await connection.query(
      'SELECT COALESCE(SUM(total),0) AS n FROM notification_counts',
    )) as unknown as [[{ n: string | number }]];
    const [heavyRows] = (await connection.query(
      `SELECT c.status, c.notificationType, c.isRead, c.total, (SELECT COUNT(*) FROM notifications n WHERE n.userId = c.userId
         AND n.status = c.status AND n.notificationType = c.notificationType AND (n.readAt IS NOT NULL) = c.isRead) AS actual
       FROM notification_counts c WHERE c.userId = ?`,
      [heavyUserId],
    )) as unknown as [{ total: string | number; actual: string | number }[]];
    const heavyOk = heavyRows.every((row) => Number(row.total) === Number(row.actual));
    const ok = Number(a.n) === Number(b.n) && heavyOk;
    return {
      ok,
      detail: `COUNT(*)=${a.n}, SUM(notification_counts.total)=${b.n}, heavy user ${heavyRows.length} count rows ${heavyOk ? 'exact' : 'WRONG'}`,
    };
  } finally {
    await connection.end();
  }
}

export async function mysqlTableSizes(
  config: BenchConfig,
): Promise<Record<string, { rows: number; dataMb: number; indexMb: number }>> {
  const connection = await adminConnection(config);
  try {
    const [rows] = (await connection.query(
      `SELECT TABLE_NAME AS name, TABLE_ROWS AS n, DATA_LENGTH AS data, INDEX_LENGTH AS idx
       FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`,
      [config.mysqlDatabase],
    )) as unknown as [{ name: string; n: number; data: number; idx: number }[]];
    return Object.fromEntries(
      rows.map((row) => [
        row.name,
        { rows: Number(row.n), dataMb: Number(row.data) / 1048576, indexMb: Number(row.idx) / 1048576 },
      ]),
    );
  } finally {
    await connection.end();
  }
}
