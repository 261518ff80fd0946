// The floor of the document routes on this stack: plain fastify + @fastify/multipart + mysql2 (or
// better-sqlite3), written from the schema and the API contract, doing the least a correct answer
// needs: HS256 verify, the user + roles lookup, the service's own list SQL (documents.sql.ts), one
// row read for a document or a download, and for an upload: stream to a temporary file while
// hashing, fsync, rename to the content address (<dir>/<aa>/<bb>/<sha256>), fsync the directory,
// insert one row. Started by the documents bench with BASELINE_DB, DATABASE_URL, JWT_SECRET,
// STORAGE_DIR, PORT and HOST.
import { createHash, createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import {
  DOCUMENT_SORTS,
  documentCountStatement,
  documentPageStatement,
  MAX_SCOPED_DOCUMENTS,
  pageCarriesTotal,
  searchScopeEstimateStatement,
  type DocumentSort,
  type DocumentVisibility,
} from '../../src/documents/document-search.repository.js';
import { DOCUMENT_COLUMNS, documentByIdSql } from './doc-statements.js';
import { AUTH_CONTEXT_SQL, callerFromRows } from '../../src/users/users.sql.js';
import { openSqlite, type SqliteDatabase } from '../sqlite.js';
import { tokenVerifier } from '../verified-token.js';

const env = process.env;
const kind = env.BASELINE_DB === 'sqlite' ? 'sqlite' : 'mysql';
const secret = createSecretKey(Buffer.from(env.JWT_SECRET ?? ''));
const issuer = env.JWT_ISSUER || 'document-management-service';
const audience = env.JWT_AUDIENCE || 'document-management-service';
const verifyJwt = tokenVerifier(secret, issuer, audience);
const storageDir = env.STORAGE_DIR ?? '/tmp/docbench/files';
const tempDir = join(storageDir, 'baseline-tmp');

interface Db {
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  run(sql: string, params: unknown[]): Promise<void>;
  iso(value: unknown): string;
  stored(date: Date): unknown;
}

function mysqlDb(url: URL): Db {
  const pool = mysql.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    connectionLimit: 10,
    enableKeepAlive: true,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
  });
  return {
    async all<T>(sql: string, params: unknown[]) {
      return (await pool.query(sql, params))[0] as T[];
    },
    async run(sql, params) {
      await pool.query(sql, params);
    },
    iso: (value) => (value as Date).toISOString(),
    stored: (date) => date,
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
  return {
    async all<T>(sql: string, params: unknown[]) {
      return prepared(sql).all(...params) as T[];
    },
    async run(sql, params) {
      prepared(sql).run(...params);
    },
    iso: (value) => `${String(value).replace(' ', 'T')}Z`,
    stored: (date) => date.toISOString().slice(0, 23).replace('T', ' '),
  };
}

const databaseUrl = env.DATABASE_URL ?? '';
const db = kind === 'sqlite' ? sqliteDb(databaseUrl.replace(/^sqlite:(\/\/)?/, '')) : mysqlDb(new URL(databaseUrl));

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
  permissions: Record<string, string[]>[];
}

async function authenticate(request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) throw new HttpError(401, 'unauthorized', 'Send a bearer token.');
  let claims: jwt.JwtPayload;
  try {
    claims = verifyJwt(header.slice(7));
  } catch {
    throw new HttpError(401, 'unauthorized', 'The token is not valid.');
  }
  const user = callerFromRows(await db.all<Record<string, unknown>>(AUTH_CONTEXT_SQL, [claims.sub]));
  if (!user || !user.isActive || user.tokenVersion !== claims.ver) {
    throw new HttpError(401, 'unauthorized', 'The token is no longer valid.');
  }
  return { id: user.id, permissions: user.roles.map((role) => role.permissions) };
}

const holds = (user: Principal, resource: string, action: string) =>
  user.permissions.some((permissions) => permissions[resource]?.includes(action));

type DocumentRow = Record<(typeof DOCUMENT_COLUMNS)[number], unknown> & { callerProjectRole?: string | null };

/** The service's DocumentDto, field for field. */
function documentJson(row: DocumentRow) {
  return {
    id: row.id,
    projectId: row.projectId,
    documentTypeId: row.documentTypeId,
    title: row.title,
    description: row.description,
    fileName: row.fileName,
    fileSize: Number(row.fileSize),
    mimeType: row.mimeType,
    currentVersion: row.currentVersion,
    status: row.status,
    tags: JSON.parse(row.tags as string) as unknown,
    metadata: JSON.parse(row.metadata as string) as unknown,
    uploadedBy: row.uploadedBy,
    createdAt: db.iso(row.createdAt),
    updatedAt: db.iso(row.updatedAt),
    sha256: row.sha256,
  };
}

/** A document the caller may read (member of its project, its uploader, documents:read), else 404. */
async function readable(user: Principal, documentId: string): Promise<DocumentRow> {
  const [row] = await db.all<DocumentRow>(documentByIdSql(), [user.id, documentId.toLowerCase()]);
  if (!row || (row.callerProjectRole == null && row.uploadedBy !== user.id && !holds(user, 'documents', 'read'))) {
    throw new HttpError(404, 'document_not_found', `No document has the id ${documentId}.`);
  }
  return row;
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
await app.register(multipart, { limits: { fileSize: 4 * 1024 * 1024 * 1024, files: 1, fields: 120 } });

app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply: FastifyReply) => {
  if (error instanceof HttpError) return reply.status(error.status).send({ error: error.code, details: error.message });
  if (error.validation) return reply.status(400).send({ error: 'validation_failed', details: error.message });
  return reply.status(error.statusCode ?? 500).send({ error: 'internal_error', details: error.message });
});

app.get('/health/live', async () => ({ status: 'ok' }));

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The service's search words: runs of letters and digits, all but the last at least 3 long. */
function searchWords(q: string): string[] {
  const words = q.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return words.filter((word, index) => index === words.length - 1 || Array.from(word).length >= 3);
}

interface ListQuery {
  projectId?: string;
  q?: string;
  sort?: DocumentSort;
  page: number;
  limit: number;
}

app.get<{ Querystring: ListQuery }>(
  '/api/documents',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          projectId: { type: 'string', pattern: UUID },
          q: { type: 'string', minLength: 1, maxLength: 200 },
          sort: { type: 'string', enum: [...DOCUMENT_SORTS] },
          page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
      },
    },
  },
  async (request) => {
    const user = await authenticate(request);
    const { q, page, limit } = request.query;
    const words = q === undefined ? undefined : searchWords(q);
    const sort = request.query.sort ?? (words ? 'relevance' : '-updatedAt');
    const filters = { projectId: request.query.projectId?.toLowerCase(), words };
    let visibility: DocumentVisibility = holds(user, 'documents', 'read')
      ? { all: true }
      : {
          all: false,
          userId: user.id,
          projectIds: (
            await db.all<{ projectId: string }>(
              'SELECT projectId FROM project_members WHERE userId = ? ORDER BY projectId',
              [user.id],
            )
          ).map((row) => row.projectId),
        };
    const offset = (page - 1) * limit;
    // The MariaDB search weighs its scope tokens first (as the service's repository does).
    const estimate = pageCarriesTotal(kind, filters) ? searchScopeEstimateStatement(visibility, filters) : undefined;
    if (estimate) {
      const plan = await db.all<{ rows: unknown }>(...estimate);
      const named = plan.reduce((sum, step) => sum + Number(step.rows ?? 0), 0);
      visibility = { ...visibility, byTokens: named <= MAX_SCOPED_DOCUMENTS };
    }
    const count = async () =>
      Number((await db.all<{ total: unknown }>(...documentCountStatement(kind, visibility, filters)))[0]?.total ?? 0);
    const read = () =>
      db.all<DocumentRow>(...documentPageStatement(kind, visibility, filters, sort, limit + 1, offset));
    let rows: DocumentRow[] = [];
    let total: number;
    if (pageCarriesTotal(kind, filters)) {
      // The MariaDB search: page and total in one statement; an empty page past the first needs the count.
      rows = await read();
      total =
        rows.length > 0
          ? Number((rows[0] as DocumentRow & { total: unknown }).total)
          : offset === 0
            ? 0
            : await count();
    } else {
      total = await count();
      if (offset < total) rows = await read();
    }
    const pagination = { page, limit, total, totalPages: Math.ceil(total / limit), nextCursor: null as string | null };
    if (rows.length === 0) return { documents: [], pagination };
    const documents = rows.slice(0, limit).map(documentJson);
    const last = documents.at(-1);
    if (sort !== 'relevance' && rows.length > limit && last) {
      const column = sort.replace('-', '') as 'updatedAt' | 'createdAt' | 'title';
      const value = column === 'title' ? last.title : new Date(last[column]).getTime();
      // The service's cursor format: base64url of {"s": sort, "v": value, "i": id}.
      pagination.nextCursor = Buffer.from(JSON.stringify({ s: sort, v: value, i: last.id })).toString('base64url');
    }
    return { documents, pagination };
  },
);

const idParams = {
  type: 'object',
  properties: { documentId: { type: 'string', pattern: UUID } },
  required: ['documentId'],
};

app.get<{ Params: { documentId: string } }>(
  '/api/documents/:documentId',
  { schema: { params: idParams } },
  async (request, reply) => {
    const user = await authenticate(request);
    const row = await readable(user, request.params.documentId);
    void reply.header('etag', `"v${String(row.rowVersion)}"`);
    return { document: documentJson(row) };
  },
);

/** One `bytes=` range of a file of `size` bytes: whole (none, several, other units), partial or unsatisfiable. */
function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'whole' | 'unsatisfiable' {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return 'whole';
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  if (start >= size) return 'unsatisfiable';
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return end < start ? 'whole' : { start, end };
}

const addressOf = (sha256: string) => join(storageDir, sha256.slice(0, 2), sha256.slice(2, 4), sha256);

app.get<{ Params: { documentId: string } }>(
  '/api/documents/:documentId/content',
  { schema: { params: idParams } },
  async (request, reply) => {
    const user = await authenticate(request);
    const row = await readable(user, request.params.documentId);
    const sha256 = row.sha256 as string | null;
    if (!sha256) throw new HttpError(404, 'version_not_found', 'This version has no stored bytes.');
    const size = Number(row.fileSize);
    const range = byteRange(request.headers.range, size);
    if (range === 'unsatisfiable') {
      void reply.header('content-range', `bytes */${size}`);
      throw new HttpError(416, 'range_not_satisfiable', `The file has ${size} bytes.`);
    }
    void reply
      .type(row.mimeType as string)
      .header('etag', `"${sha256}"`)
      .header('accept-ranges', 'bytes')
      .header('content-disposition', 'attachment');
    if (range === 'whole') {
      void reply.header('content-length', String(size));
      return reply.send(createReadStream(addressOf(sha256)));
    }
    void reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', String(range.end - range.start + 1));
    return reply.send(createReadStream(addressOf(sha256), { start: range.start, end: range.end }));
  },
);

/** Streams a file part into a temporary file, hashing and counting; fsyncs it before it answers. */
async function receive(file: NodeJS.ReadableStream): Promise<{ path: string; sha256: string; size: number }> {
  await mkdir(tempDir, { recursive: true });
  const path = join(tempDir, `${randomBytes(16).toString('hex')}.tmp`);
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  // flush: the write stream fsyncs before it closes, as the service's store does.
  await pipeline(file, tap, createWriteStream(path, { flush: true }));
  return { path, sha256: hash.digest('hex'), size };
}

/** Renames the temporary file to its content address and makes the rename durable. */
async function commit(path: string, sha256: string): Promise<void> {
  const target = addressOf(sha256);
  const directory = join(storageDir, sha256.slice(0, 2), sha256.slice(2, 4));
  await mkdir(directory, { recursive: true });
  await rename(path, target);
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

app.post('/api/documents', async (request, reply) => {
  const user = await authenticate(request);
  const fields: Record<string, string> = {};
  let stored: { path: string; sha256: string; size: number; fileName: string; mimeType: string } | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || stored) throw new HttpError(400, 'validation_failed', 'One part named file.');
      // The create rules before any byte is stored: the project exists, the caller may create in it, the type exists.
      const [target] = await db.all<{ projectId: string | null; role: string | null; typeId: string | null }>(
        'SELECT p.id AS projectId, pm.role AS role, (SELECT t.id FROM document_types t WHERE t.id = ?) AS typeId ' +
          'FROM (SELECT 1 AS one) x LEFT JOIN projects p ON p.id = ? ' +
          'LEFT JOIN project_members pm ON pm.projectId = p.id AND pm.userId = ?',
        [fields.documentTypeId ?? '', fields.projectId ?? '', user.id],
      );
      if (!target?.projectId) throw new HttpError(404, 'project_not_found', 'No such project.');
      if (target.role !== 'contributor' && target.role !== 'manager' && !holds(user, 'documents', 'create')) {
        throw new HttpError(403, 'forbidden', 'Not allowed to create documents in this project.');
      }
      if (!target.typeId) throw new HttpError(400, 'validation_failed', 'No such document type.');
      const received = await receive(part.file);
      stored = { ...received, fileName: part.filename, mimeType: part.mimetype || 'application/octet-stream' };
    }
    if (!stored) throw new HttpError(400, 'validation_failed', 'The request has no file part named "file".');
    await commit(stored.path, stored.sha256);
  } catch (error) {
    if (stored) await unlink(stored.path).catch(() => undefined);
    throw error;
  }
  const now = new Date();
  const document = {
    id: randomUUID(),
    projectId: fields.projectId,
    documentTypeId: fields.documentTypeId,
    title: fields.title ?? stored.fileName.replace(/\.[^.]*$/, ''),
    description: fields.description ?? '',
    fileName: stored.fileName,
    fileSize: stored.size,
    mimeType: stored.mimeType,
    currentVersion: 1,
    status: 'draft',
    tags: [] as string[],
    metadata: {},
    uploadedBy: user.id,
    rowVersion: 1,
    createdAt: now,
    updatedAt: now,
    sha256: stored.sha256,
    deletedAt: null,
    deletedBy: null,
  };
  await db.run(
    `INSERT INTO documents (${DOCUMENT_COLUMNS.join(', ')}) VALUES (${DOCUMENT_COLUMNS.map(() => '?').join(', ')})`,
    DOCUMENT_COLUMNS.map((column) => {
      const value = document[column];
      if (value instanceof Date) return db.stored(value);
      return column === 'tags' || column === 'metadata' ? JSON.stringify(value) : value;
    }),
  );
  void reply.code(201).header('etag', '"v1"').header('location', `/api/documents/${document.id}`);
  return {
    document: documentJson({
      ...document,
      tags: '[]',
      metadata: '{}',
      createdAt: db.stored(now),
      updatedAt: db.stored(now),
    }),
  };
});

const port = Number(env.PORT ?? 0);
await app.listen({ port, host: env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
