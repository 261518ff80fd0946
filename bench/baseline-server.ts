// The floor of this stack: plain fastify + mysql2 (or better-sqlite3) doing the same work per request
// as the service (HS256 verify with a KeyObject, user + roles lookup, the same SQL, the same JSON).
// The SQL is the service's own: imported from the feature repositories' statement modules.
// Started by run-bench with BASELINE_DB, DATABASE_URL, JWT_SECRET, PORT and HOST.
import { createSecretKey, randomUUID } from 'node:crypto';
import { verify as argonVerify } from '@node-rs/argon2';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
// The service's own statements (pure builders in the feature folders, no Nest or TypeORM loaded).
import { DOCUMENT_HISTORY_INSERT_SQL, documentByIdSql, documentUpdateSql } from '../src/documents/documents.sql.js';
import { OUTBOX_INSERT_SQL } from '../src/events/outbox.sql.js';
import { notificationCountStatement, notificationPageStatement } from '../src/notifications/notifications.sql.js';
import { AUTH_CONTEXT_SQL, USER_FOR_LOGIN_SQL } from '../src/users/users.sql.js';
import { openSqlite, type SqliteDatabase } from './sqlite.js';

const env = process.env;
const kind = env.BASELINE_DB === 'sqlite' ? 'sqlite' : 'mysql';
const secret = createSecretKey(Buffer.from(env.JWT_SECRET ?? ''));
const issuer = env.JWT_ISSUER || 'document-management-service';
const audience = env.JWT_AUDIENCE || 'document-management-service';
const expiresIn = 3600;

type Value = unknown;

/** The few operations the routes need, on either database. */
interface Db {
  all<T>(sql: string, params: Value[]): Promise<T[]>;
  /** Runs the conditional UPDATE and, if it hit the row, the INSERT, in one transaction; returns whether it hit. */
  updateWithHistory(update: [string, Value[]], ...inserts: [string, Value[]][]): Promise<boolean>;
  /** Dates come back as Date (mysql2) or as 'YYYY-MM-DD HH:MM:SS.mmm' UTC strings (SQLite). */
  iso(value: unknown): string;
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
  });
  return {
    async all<T>(sql: string, params: Value[]) {
      const [rows] = await pool.query(sql, params);
      return rows as T[];
    },
    async updateWithHistory(update, ...inserts) {
      const connection = await pool.getConnection();
      try {
        await connection.query('START TRANSACTION');
        const [result] = (await connection.query(update[0], update[1])) as unknown as [{ affectedRows: number }];
        if (result.affectedRows !== 1) {
          await connection.query('ROLLBACK');
          return false;
        }
        for (const insert of inserts) await connection.query(insert[0], insert[1]);
        await connection.query('COMMIT');
        return true;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
    iso: (value) => (value as Date).toISOString(),
  };
}

function sqliteDb(path: string): Db {
  const db: SqliteDatabase = openSqlite(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  // better-sqlite3 binds no booleans (the count's unreadOnly is written into the SQL, not bound).
  const write = db.transaction((update: [string, Value[]], inserts: [string, Value[]][]) => {
    const result = prepared(update[0]).run(...update[1]);
    if (result.changes !== 1) return false;
    for (const insert of inserts) prepared(insert[0]).run(...insert[1]);
    return true;
  });
  return {
    async all<T>(sql: string, params: Value[]) {
      return prepared(sql).all(...params) as T[];
    },
    async updateWithHistory(update, ...inserts) {
      return write(update, inserts) as boolean;
    },
    iso: (value) => `${String(value).replace(' ', 'T')}Z`,
  };
}

const databaseUrl = env.DATABASE_URL ?? '';
const db = kind === 'sqlite' ? sqliteDb(databaseUrl.replace(/^sqlite:(\/\/)?/, '')) : mysqlDb(new URL(databaseUrl));

const toDate = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');
const sqlTime = (date: Date): Value => (kind === 'sqlite' ? toDate(date) : date);

interface UserRow {
  id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  isActive: number | boolean;
  tokenVersion: number;
  createdAt: unknown;
  passwordHash?: string;
  roleId: string | null;
  roleName: string | null;
  rolePermissions: string | null;
}

interface Role {
  id: string;
  name: string;
  permissions: Record<string, string[]>;
}

function rolesOf(rows: UserRow[]): Role[] {
  return rows
    .filter((row) => row.roleId !== null)
    .map((row) => ({ id: row.roleId!, name: row.roleName!, permissions: JSON.parse(row.rolePermissions ?? '{}') }));
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Principal {
  id: string;
  username: string;
  roles: Role[];
}

async function authenticate(request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header || !header.startsWith('Bearer ')) throw new HttpError(401, 'unauthorized', 'Send a bearer token.');
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(header.slice(7), secret, { algorithms: ['HS256'], issuer, audience }) as jwt.JwtPayload;
  } catch {
    throw new HttpError(401, 'unauthorized', 'The token is not valid.');
  }
  if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
    throw new HttpError(401, 'unauthorized', 'The token is missing required claims.');
  }
  const rows = await db.all<UserRow>(AUTH_CONTEXT_SQL, [claims.sub]);
  const user = rows[0];
  if (!user || !user.isActive || user.tokenVersion !== claims.ver) {
    throw new HttpError(401, 'unauthorized', 'The token is no longer valid.');
  }
  return { id: user.id, username: user.username, roles: rolesOf(rows) };
}

const app = Fastify({
  logger: false,
  bodyLimit: 1024 * 1024,
  ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
});

app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply: FastifyReply) => {
  if (error instanceof HttpError) return reply.status(error.status).send({ error: error.code, details: error.message });
  if (error.validation) return reply.status(400).send({ error: 'validation_failed', details: error.message });
  return reply.status(error.statusCode ?? 500).send({ error: 'internal_error', details: error.message });
});

app.get('/health/live', async () => ({ status: 'ok' }));

const STATUSES = ['pending', 'sent', 'failed', 'read'];
const TYPES = ['email', 'sms', 'push', 'in_app'];

interface ListQuery {
  status?: string;
  type?: string;
  unreadOnly?: boolean;
  page: number;
  limit: number;
  cursor?: string;
}

/** Same opaque format as the service: base64url of "<epoch ms>.<id>". */
const encodeCursor = (createdAt: string, id: string) =>
  Buffer.from(`${new Date(createdAt).getTime()}.${id}`, 'utf8').toString('base64url');

function decodeCursor(raw: string): { createdAt: Date; id: string } {
  const [millis, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('.');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || !/^[0-9a-f-]{36}$/i.test(id ?? '')) {
    throw new HttpError(400, 'validation_failed', 'cursor is not a value this service returned as nextCursor');
  }
  return { createdAt: new Date(Number(millis)), id: id.toLowerCase() };
}

interface NotificationRow {
  id: string;
  userId: string;
  subject: string;
  message: string;
  notificationType: string;
  status: string;
  readAt: unknown;
  createdAt: unknown;
}

app.get<{ Querystring: ListQuery }>(
  '/api/notifications',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'string', enum: STATUSES },
          type: { type: 'string', enum: TYPES },
          unreadOnly: { type: 'boolean' },
          page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          cursor: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' },
        },
      },
    },
  },
  async (request) => {
    const user = await authenticate(request);
    const { status, type, unreadOnly, page, limit, cursor } = request.query;
    if (cursor !== undefined && /[?&]page=/.test(request.raw.url ?? '')) {
      throw new HttpError(400, 'validation_failed', 'Send either page or cursor, not both.');
    }
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    // Same statements as the service: the trigger-maintained total, then the page in one deferred join.
    const filters = { status, type, unreadOnly };
    const [{ total: rawTotal }] = await db.all<{ total: string | number }>(
      ...notificationCountStatement(user.id, filters),
    );
    const total = Number(rawTotal);
    const offset = after ? 0 : (page - 1) * limit;
    const pagination = {
      page: after ? null : page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
      nextCursor: null as string | null,
    };
    if (offset >= total) return { notifications: [], pagination };
    const position = after && { createdAt: sqlTime(after.createdAt), id: after.id };
    const all = await db.all<NotificationRow>(
      ...notificationPageStatement(user.id, filters, limit + 1, offset, position),
    );
    const rows = all.slice(0, limit);
    const last = rows.at(-1);
    if (all.length > limit && last) pagination.nextCursor = encodeCursor(db.iso(last.createdAt), last.id);
    return {
      notifications: rows.map((row) => ({
        id: row.id,
        userId: row.userId,
        subject: row.subject,
        message: row.message,
        notificationType: row.notificationType,
        status: row.status,
        readAt: row.readAt ? db.iso(row.readAt) : null,
        createdAt: db.iso(row.createdAt),
      })),
      pagination,
    };
  },
);

interface DocumentRow {
  id: string;
  callerProjectRole: string | null;
  projectId: string;
  documentTypeId: string;
  title: string;
  description: string;
  fileName: string;
  fileSize: string | number;
  mimeType: string;
  currentVersion: number;
  status: string;
  tags: string;
  metadata: string;
  uploadedBy: string;
  rowVersion: number;
  createdAt: unknown;
  updatedAt: unknown;
}

interface UpdateBody {
  title?: string;
  description?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

const EDITABLE = ['title', 'description', 'tags', 'metadata'] as const;

app.put<{ Params: { documentId: string }; Body: UpdateBody }>(
  '/api/documents/:documentId',
  {
    schema: {
      params: {
        type: 'object',
        properties: { documentId: { type: 'string', format: 'uuid' } },
        required: ['documentId'],
      },
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 255 },
          description: { type: 'string', maxLength: 10_000 },
          tags: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 64 } },
          metadata: { type: 'object' },
        },
      },
    },
  },
  async (request, reply) => {
    const user = await authenticate(request);
    const { documentId } = request.params;
    const body = request.body ?? {};
    for (let attempt = 1; ; attempt++) {
      const [row] = await db.all<DocumentRow>(documentByIdSql(), [user.id, documentId]);
      const holds = (action: string) => user.roles.some((role) => role.permissions.documents?.includes(action));
      const role = row?.callerProjectRole ?? null;
      if (!row || (role === null && row.uploadedBy !== user.id && !holds('read'))) {
        throw new HttpError(404, 'document_not_found', `No document has the id ${documentId}.`);
      }
      const canUpdate = role === 'manager' || (row.uploadedBy === user.id && role === 'contributor') || holds('update');
      if (!canUpdate) throw new HttpError(403, 'forbidden', 'Not allowed to change this document.');
      const current = {
        title: row.title,
        description: row.description,
        tags: JSON.parse(row.tags) as string[],
        metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      };
      const next = { ...body, tags: body.tags === undefined ? undefined : [...new Set(body.tags)] };
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const field of EDITABLE) {
        const value = next[field];
        if (value !== undefined && JSON.stringify(value) !== JSON.stringify(current[field])) {
          changes[field] = { from: current[field], to: value };
        }
      }
      const currentUpdatedAt = new Date(db.iso(row.updatedAt));
      const document = {
        ...current,
        id: row.id,
        projectId: row.projectId,
        documentTypeId: row.documentTypeId,
        fileName: row.fileName,
        fileSize: Number(row.fileSize),
        mimeType: row.mimeType,
        currentVersion: row.currentVersion,
        status: row.status,
        uploadedBy: row.uploadedBy,
        createdAt: db.iso(row.createdAt),
        updatedAt: currentUpdatedAt.toISOString(),
      };
      if (Object.keys(changes).length === 0) {
        void reply.header('etag', `"v${row.rowVersion}"`);
        return { document: reorder(document) };
      }
      const updatedAt = new Date(Math.max(Date.now(), currentUpdatedAt.getTime() + 1));
      const rowVersion = row.rowVersion + 1;
      const values = Object.entries(changes).map(([field, change]) =>
        field === 'tags' || field === 'metadata' ? JSON.stringify(change.to) : (change.to as string),
      );
      const hit = await db.updateWithHistory(
        [documentUpdateSql(Object.keys(changes)), [...values, sqlTime(updatedAt), rowVersion, row.id, row.rowVersion]],
        [
          DOCUMENT_HISTORY_INSERT_SQL,
          [randomUUID(), row.id, user.id, sqlTime(updatedAt), rowVersion, JSON.stringify(changes), 'updated'],
        ],
        // The transactional outbox row (document.updated), as the service writes it.
        [
          OUTBOX_INSERT_SQL,
          [
            randomUUID(),
            'document.updated',
            user.id,
            row.projectId,
            row.id,
            null,
            JSON.stringify({
              title: (changes.title?.to as string) ?? row.title,
              actorName: user.username,
              fields: Object.keys(changes),
            }),
            sqlTime(updatedAt),
            null,
          ],
        ],
      );
      if (hit) {
        void reply.header('etag', `"v${rowVersion}"`);
        for (const [field, change] of Object.entries(changes)) (document as Record<string, unknown>)[field] = change.to;
        return { document: reorder({ ...document, updatedAt: updatedAt.toISOString() }) };
      }
      if (attempt >= 5) throw new HttpError(412, 'precondition_failed', 'The document is being changed concurrently.');
    }
  },
);

/** Same field order as the service's DocumentDto. */
function reorder(d: Record<string, unknown>) {
  return {
    id: d.id,
    projectId: d.projectId,
    documentTypeId: d.documentTypeId,
    title: d.title,
    description: d.description,
    fileName: d.fileName,
    fileSize: d.fileSize,
    mimeType: d.mimeType,
    currentVersion: d.currentVersion,
    status: d.status,
    tags: d.tags,
    metadata: d.metadata,
    uploadedBy: d.uploadedBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

app.post<{ Body: { username: string; password: string } }>(
  '/api/auth/login',
  {
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['username', 'password'],
        properties: {
          username: { type: 'string', minLength: 1, maxLength: 255 },
          password: { type: 'string', minLength: 1, maxLength: 1024 },
        },
      },
    },
  },
  async (request) => {
    const { username, password } = request.body;
    // Usernames match exactly (the column's collation may ignore trailing spaces), as in the service.
    const rows = (await db.all<UserRow>(USER_FOR_LOGIN_SQL, [username])).filter((row) => row.username === username);
    const user = rows[0];
    // Raw verify: no concurrency bound beyond libuv's thread pool (the bench only logs in known users).
    const matches = user?.passwordHash ? await argonVerify(user.passwordHash, password).catch(() => false) : false;
    if (!user || !matches || !user.isActive) {
      throw new HttpError(
        401,
        'invalid_credentials',
        'The username or password is incorrect, or the account is inactive.',
      );
    }
    const token = jwt.sign({ sub: user.id, ver: user.tokenVersion }, secret, {
      algorithm: 'HS256',
      issuer,
      audience,
      expiresIn,
    });
    return {
      token,
      expiresIn,
      user: {
        id: user.id,
        username: user.username,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        roles: rolesOf(rows),
        isActive: Boolean(user.isActive),
        createdAt: db.iso(user.createdAt),
      },
    };
  },
);

const port = Number(env.PORT ?? 0);
const host = env.HOST ?? '127.0.0.1';
await app.listen({ port, host });
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
