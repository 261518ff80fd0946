// What every baseline server (bench/baseline-server.ts, bench/inbox/inbox-baseline-server.ts,
// bench/documents/doc-baseline-server.ts) shares: the database access on MySQL (mysql2, callback
// API, dates as their stored text) or SQLite (better-sqlite3), the token check the service does on
// every request (HS256 verify, then the user and their roles by primary key), the JSON error shape
// and the server's boot. Written from the schema (src/migrations) and the API contract, never from
// the service's statements. Each server reads BASELINE_DB, DATABASE_URL, JWT_SECRET, PORT and HOST.
import { createSecretKey } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2';
import { openSqlite, type SqliteDatabase } from './sqlite.js';

const env = process.env;
export const kind: 'mysql' | 'sqlite' = env.BASELINE_DB === 'sqlite' ? 'sqlite' : 'mysql';
export const secret = createSecretKey(Buffer.from(env.JWT_SECRET ?? ''));
export const issuer = env.JWT_ISSUER || 'document-management-service';
export const audience = env.JWT_AUDIENCE || 'document-management-service';

export type Value = unknown;
export type Statement = [string, Value[]];

/** The few operations the routes need, on either database. Dates are always the stored text. */
export interface Db {
  all<T>(sql: string, params: Value[]): Promise<T[]>;
  /**
   * Rows as arrays of their values in select-list order: better-sqlite3's raw mode (it builds an
   * object row one property at a time through V8's API, dearer than the query on a 20-row page);
   * mysql2's objects taken in field order (its rowsAsArray option costs more per query than it saves).
   */
  tuples<T extends readonly Value[]>(sql: string, params: Value[]): Promise<T[]>;
  /** One write on its own (it commits by itself). */
  run(sql: string, params: Value[]): Promise<void>;
  /** Writes that stand or fall together, in one transaction (MySQL: one round trip). */
  runAll(statements: Statement[]): Promise<void>;
  /**
   * One transaction: `update`, and only if it changed exactly one row, the inserts. Answers whether
   * it hit. MySQL: one round trip (START TRANSACTION; UPDATE; INSERT ... WHERE ROW_COUNT() = 1; ...;
   * COMMIT); SQLite: one synchronous better-sqlite3 transaction.
   */
  updateWithInserts(update: Statement, inserts: RowInsert[]): Promise<boolean>;
}

/** A row inserted after the UPDATE; `orIgnore`: a duplicate key is no error (nothing is inserted). */
export interface RowInsert {
  table: string;
  columns: readonly string[];
  values: Value[];
  orIgnore?: boolean;
}

function mysqlDb(url: URL): Db {
  const pool = mysql.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    connectionLimit: 10,
    waitForConnections: true,
    queueLimit: 500,
    enableKeepAlive: true,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    // DATETIME(3) as its text 'YYYY-MM-DD HH:MM:SS.mmm': no Date object per value.
    dateStrings: true,
    // The update's transaction in one round trip (every value is bound, never spliced in).
    multipleStatements: true,
  });
  // Text statements: prepared ones (execute) cost this server more Node CPU than they saved MariaDB's.
  const query = <T>(target: mysql.Pool | mysql.PoolConnection, sql: string, params: Value[]) =>
    new Promise<T>((resolve, reject) =>
      target.query(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as T))),
    );
  return {
    all: <T>(sql: string, params: Value[]) => query<T[]>(pool, sql, params),
    tuples: async <T extends readonly Value[]>(sql: string, params: Value[]) =>
      (await query<Record<string, Value>[]>(pool, sql, params)).map((row) => Object.values(row) as unknown as T),
    run: async (sql, params) => void (await query(pool, sql, params)),
    async runAll(statements) {
      const connection = await new Promise<mysql.PoolConnection>((resolve, reject) =>
        pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
      );
      const sql = ['START TRANSACTION', ...statements.map(([text]) => text), 'COMMIT'].join(';\n');
      try {
        await query(
          connection,
          sql,
          statements.flatMap(([, params]) => params),
        );
        connection.release();
      } catch (error) {
        await query(connection, 'ROLLBACK', []).then(
          () => connection.release(),
          () => connection.destroy(),
        );
        throw error;
      }
    },
    async updateWithInserts(update, inserts) {
      const connection = await new Promise<mysql.PoolConnection>((resolve, reject) =>
        pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
      );
      // ROW_COUNT() is the previous statement's count: the UPDATE's, then each INSERT's (1 or 0).
      const sql = [
        'START TRANSACTION',
        update[0],
        ...inserts.map(
          ({ table, columns, orIgnore }) =>
            `INSERT${orIgnore ? ' IGNORE' : ''} INTO ${table} (${columns.join(', ')}) ` +
            `SELECT ${columns.map(() => '?').join(', ')} FROM DUAL WHERE ROW_COUNT() = 1`,
        ),
        'COMMIT',
      ].join(';\n');
      try {
        const results = await query<{ affectedRows: number }[]>(connection, sql, [
          ...update[1],
          ...inserts.flatMap((insert) => insert.values),
        ]);
        connection.release();
        return results[1].affectedRows === 1;
      } catch (error) {
        // A statement failed mid-batch: the transaction is still open on this connection.
        await query(connection, 'ROLLBACK', []).then(
          () => connection.release(),
          () => connection.destroy(),
        );
        throw error;
      }
    },
  };
}

function sqliteDb(path: string): Db {
  const db: SqliteDatabase = openSqlite(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  const cache = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const prepared = (sql: string, raw = false) => {
    const key = raw ? `raw:${sql}` : sql;
    let statement = cache.get(key);
    if (!statement) cache.set(key, (statement = raw ? db.prepare(sql).raw(true) : db.prepare(sql)));
    return statement;
  };
  const write = db.transaction((update: Statement, inserts: Statement[]) => {
    if (prepared(update[0]).run(...update[1]).changes !== 1) return false;
    for (const insert of inserts) prepared(insert[0]).run(...insert[1]);
    return true;
  }) as ((update: Statement, inserts: Statement[]) => boolean) & {
    immediate(update: Statement, inserts: Statement[]): boolean;
  };
  const runAll = db.transaction((statements: Statement[]) => {
    for (const [sql, params] of statements) prepared(sql).run(...params);
  }) as ((statements: Statement[]) => void) & { immediate(statements: Statement[]): void };
  return {
    async all<T>(sql: string, params: Value[]) {
      return prepared(sql).all(...params) as T[];
    },
    async tuples<T extends readonly Value[]>(sql: string, params: Value[]) {
      return prepared(sql, true).all(...params) as unknown as T[];
    },
    async run(sql, params) {
      prepared(sql).run(...params);
    },
    async runAll(statements) {
      runAll.immediate(statements);
    },
    async updateWithInserts(update, inserts) {
      const statements = inserts.map(({ table, columns, values, orIgnore }): Statement => [
        `INSERT${orIgnore ? ' OR IGNORE' : ''} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        values,
      ]);
      return write.immediate(update, statements);
    },
  };
}

const databaseUrl = env.DATABASE_URL ?? '';
export const db: Db =
  kind === 'sqlite' ? sqliteDb(databaseUrl.replace(/^sqlite:(\/\/)?/, '')) : mysqlDb(new URL(databaseUrl));

/** Both databases give DATETIME(3) as 'YYYY-MM-DD HH:MM:SS.mmm' (UTC); the API's form is ISO with Z. */
export const iso = (stored: string) => `${stored.slice(0, 10)}T${stored.slice(11)}Z`;

/** A JSON column as the API shows it (MariaDB's JSON is text to mysql2, as SQLite's); null stays null. */
export const jsonColumn = (stored: unknown): unknown => (typeof stored === 'string' ? JSON.parse(stored) : stored);
export const stored = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Permissions = Record<string, string[]>;

/** The authenticated caller: what authorization needs about them. */
export interface Caller {
  id: string;
  username: string;
  permissions: Permissions[];
  /** With authenticate(request, true): the caller's project ids, read in the same statement. */
  projectIds?: string[];
}

export const holds = (caller: Caller, resource: string, action: string) =>
  caller.permissions.some((permissions) => permissions[resource]?.includes(action));

/** The user and each of their roles' permissions (one row per role, NULL without roles), by primary key. */
const CALLER_SQL =
  'SELECT u.username, u.isActive, u.tokenVersion, r.permissions FROM users u ' +
  'LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId WHERE u.id = ?';

/** The same with the user's project ids (MariaDB's group_concat_max_len is 1 MiB: 28,000 ids). */
const CALLER_WITH_PROJECTS_SQL = CALLER_SQL.replace(
  'r.permissions FROM',
  'r.permissions, (SELECT GROUP_CONCAT(pm.projectId) FROM project_members pm WHERE pm.userId = u.id) AS projectIds FROM',
);

/**
 * As the service's guard: the bearer token verified (HS256, issuer, audience, exp) on every request,
 * then the user read by primary key: it must exist, be active and still have the token's version.
 */
export async function authenticate(request: FastifyRequest, withProjects = false): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) throw new HttpError(401, 'unauthorized', 'Send a bearer token.');
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(header.slice(7), secret, { algorithms: ['HS256'], issuer, audience }) as jwt.JwtPayload;
  } catch {
    throw new HttpError(401, 'unauthorized', 'The token is not valid.');
  }
  if (typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
    throw new HttpError(401, 'unauthorized', 'The token is missing required claims.');
  }
  const rows = await db.all<{
    username: string;
    isActive: unknown;
    tokenVersion: unknown;
    permissions: string | null;
    projectIds?: string | null;
  }>(withProjects ? CALLER_WITH_PROJECTS_SQL : CALLER_SQL, [claims.sub]);
  const user = rows[0];
  if (!user || Number(user.isActive) !== 1 || Number(user.tokenVersion) !== claims.ver) {
    throw new HttpError(401, 'unauthorized', 'The token is no longer valid.');
  }
  return {
    id: claims.sub,
    username: user.username,
    permissions: rows.flatMap((row) => (row.permissions === null ? [] : [JSON.parse(row.permissions) as Permissions])),
    ...(withProjects ? { projectIds: user.projectIds ? user.projectIds.split(',') : [] } : {}),
  };
}

/** A fastify app with the service's error shape ({error, details}) and GET /health/live. */
export function createApp(options: { bodyLimit?: number } = {}): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  });
  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply: FastifyReply) => {
    if (error instanceof HttpError)
      return reply.status(error.status).send({ error: error.code, details: error.message });
    if (error.validation) return reply.status(400).send({ error: 'validation_failed', details: error.message });
    return reply.status(error.statusCode ?? 500).send({ error: 'internal_error', details: error.message });
  });
  app.get('/health/live', async () => ({ status: 'ok' }));
  return app;
}

/** Listens on HOST:PORT; SIGTERM closes the server. */
export async function listen(app: FastifyInstance): Promise<void> {
  await app.listen({ port: Number(env.PORT ?? 0), host: env.HOST ?? '127.0.0.1' });
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}
