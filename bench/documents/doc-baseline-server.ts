// The floor of the document routes on this stack: plain fastify + @fastify/multipart + mysql2 (or
// better-sqlite3), written from the schema and the API contract, doing the least a correct answer
// needs: the token check of every baseline (bench/baseline-common.ts), the list as one index range
// per member project merged, the search by the full-text index (MariaDB: document_search with the
// caller's project and uploader tokens in the MATCH, migration DocumentSearchScope; SQLite: FTS5),
// one row read for a document or a download, and for an upload: stream to a temporary file while
// hashing, fsync, rename to the content address (<dir>/<aa>/<bb>/<sha256>), fsync the directory,
// insert one row. Also reads STORAGE_DIR.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import {
  authenticate,
  createApp,
  db,
  holds,
  HttpError,
  iso,
  jsonColumn,
  kind,
  listen,
  stored as storedForm,
  type Caller,
} from '../baseline-common.js';

const storageDir = process.env.STORAGE_DIR ?? '/tmp/docbench/files';
const tempDir = join(storageDir, 'baseline-tmp');

/** Every column of `documents` (InitialSchema and later migrations). */
const COLUMNS = [
  'id',
  'projectId',
  'documentTypeId',
  'title',
  'description',
  'fileName',
  'fileSize',
  'mimeType',
  'currentVersion',
  'status',
  'tags',
  'metadata',
  'fields',
  'uploadedBy',
  'rowVersion',
  'createdAt',
  'updatedAt',
  'sha256',
  'deletedAt',
  'deletedBy',
] as const;
const columnsOf = (alias: string) => COLUMNS.map((column) => `${alias}.${column}`).join(', ');

type DocumentRow = Record<(typeof COLUMNS)[number], unknown> & {
  callerProjectRole?: string | null;
  total?: unknown;
  contentStatus?: string | null;
  contentPages?: unknown;
  contentCharacters?: unknown;
  contentExtractedAt?: string | null;
  contentError?: string | null;
};

/** The current version's extraction state (document_contents; no row: pending), as the list answers it. */
const CONTENT_COLUMNS =
  'dc.status AS contentStatus, dc.pages AS contentPages, dc.characters AS contentCharacters, ' +
  'dc.extractedAt AS contentExtractedAt, dc.error AS contentError';

function contentJson(row: DocumentRow) {
  return {
    status: row.contentStatus ?? 'pending',
    pages: row.contentPages == null ? null : Number(row.contentPages),
    characters: row.contentCharacters == null ? null : Number(row.contentCharacters),
    extractedAt: row.contentExtractedAt ? iso(row.contentExtractedAt) : null,
    error: row.contentError ?? null,
  };
}

/** The API's document, field for field. */
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
    fields: jsonColumn(row.fields) ?? {},
    uploadedBy: row.uploadedBy,
    createdAt: iso(row.createdAt as string),
    updatedAt: iso(row.updatedAt as string),
    sha256: row.sha256,
  };
}

const DOCUMENT_BY_ID_SQL =
  `SELECT ${columnsOf('d')}, pm.role AS callerProjectRole FROM documents d ` +
  'LEFT JOIN project_members pm ON pm.projectId = d.projectId AND pm.userId = ? WHERE d.id = ? AND d.deletedAt IS NULL';

/** A document the caller may read (member of its project, its uploader, documents:read), else 404. */
async function readable(caller: Caller, documentId: string): Promise<DocumentRow> {
  const [row] = await db.all<DocumentRow>(DOCUMENT_BY_ID_SQL, [caller.id, documentId.toLowerCase()]);
  if (!row || (row.callerProjectRole == null && row.uploadedBy !== caller.id && !holds(caller, 'documents', 'read'))) {
    throw new HttpError(404, 'document_not_found', `No document has the id ${documentId}.`);
  }
  return row;
}

const app = createApp();
await app.register(multipart, { limits: { fileSize: 4 * 1024 * 1024 * 1024, files: 1, fields: 120 } });

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The contract's search words: runs of letters and digits, all but the last at least 3 long. */
function searchWords(q: string): string[] {
  const words = q.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return words.filter((word, index) => index === words.length - 1 || Array.from(word).length >= 3);
}

const SORTS = ['-updatedAt', 'updatedAt', '-createdAt', 'createdAt', 'title', '-title', 'relevance'] as const;
type Sort = (typeof SORTS)[number];
const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');
/** ORDER BY of a sort on `alias` (ties by id in the same direction; relevance: best first, then id). */
function orderBy(alias: string, sort: Sort): string {
  if (sort === 'relevance') return `${alias}.relevance ${kind === 'mysql' ? 'DESC' : 'ASC'}, ${alias}.id ASC`;
  const direction = sort.startsWith('-') ? 'DESC' : 'ASC';
  return `${alias}.${sort.replace('-', '')} ${direction}, ${alias}.id ${direction}`;
}

/** Up to this many member projects one index range per project, merged; beyond, one range with a membership check. */
const MERGE_UP_TO = 50;
const EVERYTHING_INDEX = {
  updatedAt: 'IDX_documents_deleted_list',
  createdAt: 'IDX_documents_deleted_created',
  title: 'IDX_documents_deleted_title',
};

/**
 * The list without words in one statement: the page's (sort value, id) keys off the list indexes
 * (one range per member project merged, or one range of the everything index), the rows by primary
 * key, each carrying the total summed from document_counts.
 */
async function listPage(
  caller: Caller,
  everything: boolean,
  projectId: string | undefined,
  sort: Exclude<Sort, 'relevance'>,
  take: number,
  offset: number,
) {
  const column = sort.replace('-', '');
  const direction = sort.startsWith('-') ? 'DESC' : 'ASC';
  const keyOrder = (alias: string) => `${alias}.v ${direction}, ${alias}.id ${direction}`;
  const range = (where: string, hint = '') =>
    `SELECT d.${column} AS v, d.id FROM documents d${hint} WHERE d.deletedAt IS NULL AND ${where} ORDER BY d.${column} ${direction}, d.id ${direction}`;
  const parts: [string, unknown[]][] = [];
  const sums: [string, unknown[]][] = [];
  const sum = (where: string, params: unknown[]): [string, unknown[]] => [
    `(SELECT COALESCE(SUM(total), 0) FROM document_counts WHERE ${where} AND status = '' AND documentTypeId = '')`,
    params,
  ];
  const hint = kind === 'mysql' ? ` FORCE INDEX (${EVERYTHING_INDEX[column as keyof typeof EVERYTHING_INDEX]})` : '';
  if (everything) {
    parts.push(projectId ? [range('d.projectId = ?'), [projectId]] : [range('1 = 1', hint), []]);
    sums.push(projectId ? sum("projectId = ? AND uploadedBy = ''", [projectId]) : sum("uploadedBy = ''", []));
  } else {
    // The member projects came with the token check; own uploads outside them are found from document_counts.
    const members = caller.projectIds ?? [];
    const projects = members.filter((id) => !projectId || id === projectId);
    const outside = members.length ? ` AND projectId NOT IN (${marks(members)})` : '';
    if (projectId) {
      parts.push(
        projects.length
          ? [range('d.projectId = ?'), [projectId]]
          : [range('d.projectId = ? AND d.uploadedBy = ?'), [projectId, caller.id]],
      );
      sums.push(sum(`projectId = ? AND uploadedBy = ?`, [projectId, projects.length ? '' : caller.id]));
    } else {
      if (projects.length) sums.push(sum(`projectId IN (${marks(projects)}) AND uploadedBy = ''`, projects));
      sums.push(sum(`uploadedBy = ?${outside}`, [caller.id, ...members]));
      if (projects.length <= MERGE_UP_TO) {
        for (const id of projects) parts.push([range('d.projectId = ?'), [id]]);
        const countsFirst = kind === 'mysql' ? 'STRAIGHT_JOIN' : 'CROSS JOIN';
        parts.push([
          `SELECT d.${column} AS v, d.id FROM document_counts c ${countsFirst} documents d WHERE c.uploadedBy = ? AND c.status = '' ` +
            `AND c.documentTypeId = '' AND c.total > 0${outside.replace('projectId', 'c.projectId')} ` +
            `AND d.projectId = c.projectId AND d.uploadedBy = c.uploadedBy AND d.deletedAt IS NULL ORDER BY d.${column} ${direction}, d.id ${direction}`,
          [caller.id, ...members],
        ]);
      } else {
        const member = 'EXISTS (SELECT 1 FROM project_members pm WHERE pm.userId = ? AND pm.projectId = d.projectId)';
        parts.push([range(`(${member} OR d.uploadedBy = ?)`, hint), [caller.id, caller.id]]);
      }
    }
  }
  if (parts.length === 0) return { rows: [], total: 0 };
  const keys =
    parts.length === 1
      ? ([`${parts[0][0]} LIMIT ? OFFSET ?`, [...parts[0][1], take, offset]] as const)
      : kind === 'mysql'
        ? ([
            `${parts.map(([sql]) => `(${sql} LIMIT ?)`).join(' UNION ALL ')} ORDER BY v ${direction}, id ${direction} LIMIT ? OFFSET ?`,
            [...parts.flatMap(([, params]) => [...params, offset + take]), take, offset],
          ] as const)
        : ([
            `SELECT u.v, u.id FROM (${parts.map(([sql], i) => `SELECT * FROM (${sql} LIMIT ?) p${i}`).join(' UNION ALL ')}) u ` +
              `ORDER BY ${keyOrder('u')} LIMIT ? OFFSET ?`,
            [...parts.flatMap(([, params]) => [...params, offset + take]), take, offset],
          ] as const);
  const total = sums.length ? sums.map(([sql]) => sql).join(' + ') : '0';
  const rows = await db.all<DocumentRow>(
    `SELECT ${kind === 'mysql' ? 'STRAIGHT_JOIN ' : ''}${columnsOf('d')}, ${CONTENT_COLUMNS}, ${total} AS total FROM (${keys[0]}) p ` +
      `JOIN documents d ON d.id = p.id LEFT JOIN document_contents dc ON dc.documentId = d.id AND dc.version = d.currentVersion ` +
      `ORDER BY ${keyOrder('p')}`,
    [...sums.flatMap(([, params]) => params), ...keys[1]],
  );
  if (rows.length || offset === 0) return { rows, total: rows.length ? Number(rows[0].total) : 0 };
  const [{ n }] = await db.all<{ n: unknown }>(
    `SELECT ${total} AS n`,
    sums.flatMap(([, params]) => params),
  );
  return { rows, total: Number(n) };
}

const SEARCH_MATCH = 'MATCH (s.title, s.description, s.fileName, s.tags, s.scope) AGAINST (? IN BOOLEAN MODE)';
const scopeToken = (prefix: 'p' | 'u', id: string) => `_${prefix}${id.replaceAll('-', '').toLowerCase()}`;

/**
 * The search, page and total in one statement. MariaDB: the words' MATCH (BOOLEAN MODE, the last word
 * a prefix) on document_search, also requiring one of the caller's project tokens or their uploader
 * token (document_search.scope) when they see only their projects: exactly the visible documents,
 * found by the index; the relevance is the words' MATCH alone. SQLite: FTS5 with bm25().
 */
async function searchPage(
  caller: Caller,
  everything: boolean,
  projectIds: string[],
  words: string[],
  projectId: string | undefined,
  sort: Sort,
  take: number,
  offset: number,
) {
  const last = words.length - 1;
  const where: string[] = ['d.deletedAt IS NULL'];
  const params: unknown[] = [];
  let select: string;
  if (kind === 'mysql') {
    const query = words.map((word, index) => `+${word}${index === last ? '*' : ''}`).join(' ');
    const tokens = everything ? [] : [...projectIds.map((id) => scopeToken('p', id)), scopeToken('u', caller.id)];
    select =
      `SELECT ${columnsOf('d')}, ${SEARCH_MATCH} AS relevance FROM document_search s JOIN documents d ON d.id = s.documentId ` +
      `WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL`;
    params.push(query, tokens.length ? `${query} +(${tokens.join(' ')})` : query);
  } else {
    const query = words.map((word, index) => `"${word.replaceAll('"', '""')}"${index === last ? '*' : ''}`).join(' ');
    select =
      `SELECT ${columnsOf('d')}, bm25(documents_fts) AS relevance FROM documents_fts f ` +
      'JOIN documents d ON d.rowid = f.rowid WHERE documents_fts MATCH ?';
    params.push(query);
    if (!everything) {
      where.push(`(d.projectId IN (${marks(projectIds)}) OR d.uploadedBy = ?)`);
      params.push(...projectIds, caller.id);
    }
  }
  if (projectId) {
    where.push('d.projectId = ?');
    params.push(projectId);
  }
  const rows = await db.all<DocumentRow>(
    `SELECT x.*, COUNT(*) OVER () AS total FROM (${select} AND ${where.join(' AND ')}) x ` +
      `ORDER BY ${orderBy('x', sort)} LIMIT ? OFFSET ?`,
    [...params, take, offset],
  );
  // An empty page past the first says nothing of the total: count.
  const total = rows.length
    ? Number(rows[0].total)
    : offset === 0
      ? 0
      : Number(
          (
            await db.all<{ n: unknown }>(`SELECT COUNT(*) AS n FROM (${select} AND ${where.join(' AND ')}) x`, params)
          )[0].n,
        );
  return { rows, total };
}

interface ListQuery {
  projectId?: string;
  q?: string;
  sort?: Sort;
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
          sort: { type: 'string', enum: [...SORTS] },
          page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
      },
    },
  },
  async (request) => {
    const caller = await authenticate(request, true);
    const { q, page, limit } = request.query;
    const words = q === undefined ? undefined : searchWords(q);
    const sort = request.query.sort ?? (words ? 'relevance' : '-updatedAt');
    if (sort === 'relevance' && !words?.length) throw new HttpError(400, 'validation_failed', 'relevance needs q');
    const projectId = request.query.projectId?.toLowerCase();
    const everything = holds(caller, 'documents', 'read');
    const offset = (page - 1) * limit;
    const { rows, total } =
      words?.length || sort === 'relevance'
        ? await searchPage(
            caller,
            everything,
            everything ? [] : (caller.projectIds ?? []),
            words ?? [],
            projectId,
            sort,
            limit + 1,
            offset,
          )
        : await listPage(caller, everything, projectId, sort, limit + 1, offset);
    const pagination = {
      page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
      nextCursor: null as string | null,
      totalIsExact: true,
    };
    if (rows.length === 0) return { documents: [], pagination };
    const documents = rows
      .slice(0, limit)
      .map((row) => ('contentStatus' in row ? { ...documentJson(row), content: contentJson(row) } : documentJson(row)));
    const last = documents.at(-1);
    if (sort !== 'relevance' && rows.length > limit && last) {
      const column = sort.replace('-', '') as 'updatedAt' | 'createdAt' | 'title';
      const value = column === 'title' ? last.title : new Date(last[column]).getTime();
      // The contract's cursor: base64url of {"s": sort, "v": value, "i": id}.
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
    fields: null,
    uploadedBy: user.id,
    rowVersion: 1,
    createdAt: now,
    updatedAt: now,
    sha256: stored.sha256,
    deletedAt: null,
    deletedBy: null,
  };
  // The row and its four document_counts rows (project and uploader, by status and type and over any).
  const counted = [
    [document.projectId, '', document.status, document.documentTypeId],
    [document.projectId, '', '', ''],
    [document.projectId, user.id, document.status, document.documentTypeId],
    [document.projectId, user.id, '', ''],
  ].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  await db.runAll([
    [
      `INSERT INTO documents (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
      COLUMNS.map((column) => {
        const value = document[column];
        if (value instanceof Date) return storedForm(value);
        return column === 'tags' || column === 'metadata' ? JSON.stringify(value) : value;
      }),
    ],
    [
      'INSERT INTO document_counts (projectId, uploadedBy, status, documentTypeId, total) VALUES ' +
        counted.map(() => '(?, ?, ?, ?, 1)').join(', ') +
        (kind === 'mysql'
          ? ' ON DUPLICATE KEY UPDATE total = total + 1'
          : ' ON CONFLICT (projectId, uploadedBy, status, documentTypeId) DO UPDATE SET total = total + 1'),
      counted.flat(),
    ],
  ]);
  void reply.code(201).header('etag', '"v1"').header('location', `/api/documents/${document.id}`);
  return {
    document: documentJson({
      ...document,
      tags: '[]',
      metadata: '{}',
      createdAt: storedForm(now),
      updatedAt: storedForm(now),
    }),
  };
});

await listen(app);
