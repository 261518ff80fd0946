// The attention part's own data (issue 33), on MariaDB and SQLite: the base bench rows at a small
// size (users, projects, documents) through the shared loaders, then a project of N members with
// watchers and if_unread preferences, and the rows the scenarios add (deliveries, saved searches).
import { randomUUID } from 'node:crypto';
import type mysql from 'mysql2/promise';
import type { BenchConfig } from '../config.js';
import { makePlan, sqlDate, userId, type DataPlan, type Row } from '../datagen.js';
import {
  adminConnection,
  bulkInsertMysql,
  createMysqlSchema,
  dropMysql,
  loadMysqlBase,
  mysqlUrl,
} from '../load-mysql.js';
import { bulkInsertSqlite, createSqliteSchema, loadSqlite, removeSqlite } from '../load-sqlite.js';
import { openSqlite, type SqliteDatabase } from '../sqlite.js';
import type { AttentionSettings } from './attention-settings.js';

export type Kind = 'mysql' | 'sqlite';

export const ATTENTION_PROJECT = 'b0000009-0000-4000-8000-000000000001';
export const WARM_PROJECT = 'b0000009-0000-4000-8000-000000000002';

/** Plain statements against either database, for loading and polling (not the service's path). */
export interface BenchDb {
  kind: Kind;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<void>;
  insert(table: string, columns: string[], rows: Iterable<Row>, total: number, label: string): Promise<void>;
  close(): Promise<void>;
}

/** `?, ?, ?` for an IN list of n values (both databases). */
export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** The bench configuration of this part: its own database and file, the users the project needs. */
export function attentionConfig(config: BenchConfig, settings: AttentionSettings): BenchConfig {
  const users = settings.members + 2;
  return {
    ...config,
    users,
    documents: settings.documents,
    notifications: 1_000,
    heavy: 100,
    probeUsers: 100,
    stage1: 0,
    mysqlDatabase: `${config.mysqlDatabase}_attention`,
    sqlitePath: config.sqlitePath.replace(/(\.sqlite)?$/, '-attention.sqlite'),
  };
}

export const managerIndex = (settings: AttentionSettings) => settings.members + 1;

export function databaseUrl(kind: Kind, config: BenchConfig): string {
  return kind === 'mysql' ? mysqlUrl(config) : `sqlite:${config.sqlitePath}`;
}

/** Creates the schema through the service's migrations, loads the base rows and the attention project. */
export async function loadAttentionData(
  kind: Kind,
  config: BenchConfig,
  settings: AttentionSettings,
  passwordHash: string,
): Promise<DataPlan> {
  const plan = makePlan(config, passwordHash);
  if (kind === 'mysql') {
    await createMysqlSchema(config);
    await loadMysqlBase(config, plan, {});
  } else {
    await createSqliteSchema(config);
    loadSqlite(config, plan, {});
  }
  const db = await openBenchDb(kind, config);
  try {
    const created = sqlDate(plan.now);
    await db.insert(
      'projects',
      ['id', 'name', 'createdAt'],
      [
        [ATTENTION_PROJECT, 'Attention project', created],
        [WARM_PROJECT, 'Attention warm-up', created],
      ],
      2,
      'attention projects',
    );
    const manager = managerIndex(settings);
    function* members(): Generator<Row> {
      for (let k = 1; k <= settings.members; k++) yield [ATTENTION_PROJECT, userId(k), 'viewer', created];
      yield [ATTENTION_PROJECT, userId(manager), 'manager', created];
      yield [WARM_PROJECT, userId(manager), 'manager', created];
    }
    await db.insert(
      'project_members',
      ['projectId', 'userId', 'role', 'createdAt'],
      members(),
      settings.members + 2,
      'attention members',
    );
    function* watchers(): Generator<Row> {
      for (let k = 1; k <= settings.watchers; k++) yield [ATTENTION_PROJECT, userId(k), created];
    }
    await db.insert('project_watches', ['projectId', 'userId', 'createdAt'], watchers(), settings.watchers, 'watchers');
    function* preferences(): Generator<Row> {
      // Every 2nd watcher first, then other members: if_unread e-mail for new documents (15 minutes).
      for (let i = 0; i < settings.ifUnread; i++) {
        const k = 1 + ((i * 2) % settings.members);
        yield [userId(k), 'document.created', 1, 1, 'if_unread', 15];
      }
    }
    await db.insert(
      'notification_preferences',
      ['userId', 'event', 'inApp', 'email', 'emailMode', 'emailDelayMinutes'],
      preferences(),
      settings.ifUnread,
      'if_unread preferences',
    );
  } finally {
    await db.close();
  }
  return plan;
}

export async function dropAttentionData(config: BenchConfig): Promise<void> {
  if (config.mysql) await dropMysql(config).catch(() => undefined);
  removeSqlite(config.sqlitePath);
}

export async function openBenchDb(kind: Kind, config: BenchConfig): Promise<BenchDb> {
  if (kind === 'mysql') return mysqlDb(await adminConnection(config, config.mysqlDatabase));
  return sqliteDb(openSqlite(config.sqlitePath, { timeout: 30_000 }));
}

function mysqlDb(connection: mysql.Connection): BenchDb {
  return {
    kind: 'mysql',
    async all<T>(sql: string, params: unknown[] = []) {
      const [rows] = (await connection.query(sql, params)) as unknown as [T[]];
      return rows;
    },
    async run(sql: string, params: unknown[] = []) {
      await connection.query(sql, params);
    },
    async insert(table, columns, rows, total, label) {
      await bulkInsertMysql(connection, table, columns, rows, { batch: 1000, total, label });
    },
    close: () => connection.end(),
  };
}

function sqliteDb(db: SqliteDatabase): BenchDb {
  return {
    kind: 'sqlite',
    all<T>(sql: string, params: unknown[] = []) {
      return Promise.resolve(db.prepare(sql).all(...params) as T[]);
    },
    run(sql: string, params: unknown[] = []) {
      db.prepare(sql).run(...params);
      return Promise.resolve();
    },
    insert(table, columns, rows, total, label) {
      bulkInsertSqlite(db, table, columns, rows, total, label);
      return Promise.resolve();
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

export const DELIVERY_COLUMNS = [
  'id',
  'hookId',
  'eventId',
  'eventType',
  'body',
  'status',
  'attempts',
  'nextAttemptAt',
  'createdAt',
];

/** `count` pending deliveries of one hook, due at `due` (the worker's claim reads nextAttemptAt). */
export function* deliveryRows(hookId: string, count: number, due: number): Generator<Row> {
  for (let i = 0; i < count; i++) {
    const eventId = randomUUID();
    const body = JSON.stringify({
      type: 'document.updated',
      timestamp: new Date(due).toISOString(),
      data: { eventId, projectId: ATTENTION_PROJECT, documentId: randomUUID(), title: `Bench delivery ${i}` },
    });
    yield [randomUUID(), hookId, eventId, 'document.updated', body, 'pending', 0, sqlDate(due), sqlDate(due)];
  }
}

export const SAVED_SEARCH_COLUMNS = ['id', 'ownerId', 'name', 'q', 'filters', 'alert', 'createdAt', 'updatedAt'];

const WORDS = ['contract', 'invoice', 'policy', 'minutes', 'offer', 'drawing', 'report', 'specification'];

/**
 * `count` alerting searches of the members, in four kinds filed under different index buckets:
 * by project, by document type and status, by a word of q (mostly words no title has), by uploader and tag.
 */
export function* savedSearchRows(
  count: number,
  members: number,
  projectIds: string[],
  typeIds: string[],
  now: number,
): Generator<Row> {
  for (let i = 0; i < count; i++) {
    const owner = userId(1 + (i % members));
    let q: string | null = null;
    let filters: Record<string, string> = {};
    switch (i % 4) {
      case 0:
        filters = { projectId: projectIds[i % projectIds.length] };
        break;
      case 1:
        filters = { documentTypeId: typeIds[i % typeIds.length], status: 'published' };
        break;
      case 2:
        q = i % 100 === 2 ? WORDS[i % WORDS.length] : `term${i}`;
        break;
      default:
        filters = { uploadedBy: userId(i % members), tags: 'legal' };
    }
    const at = sqlDate(now + i);
    yield [randomUUID(), owner, `Search ${i}`, q, JSON.stringify(filters), 1, at, at];
  }
}
