// The floor of the notification list, the document update and login on this stack: plain fastify +
// mysql2 (or better-sqlite3) doing each the cheapest correct way, written from the schema and the
// API contract alone (not the service's statements): the token verified and the user read by
// primary key on every request (bench/baseline-common.ts, as the service's guard), page 1 straight
// off the (userId, [filter,] createdAt, id) index, dates as the stored text, an update's transaction
// sent as one round trip, and every login attempt recorded in audit_events (the README's audit
// trail). The service is judged as a ratio to it.
import { randomUUID } from 'node:crypto';
import { verify as argonVerify } from '@node-rs/argon2';
import jwt from 'jsonwebtoken';
import {
  audience,
  authenticate,
  createApp,
  db,
  holds,
  HttpError,
  issuer,
  iso,
  listen,
  secret,
  stored,
  type Value,
} from './baseline-common.js';

const expiresIn = 3600;
const app = createApp();

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
const encodeCursor = (createdAtIso: string, id: string) =>
  Buffer.from(`${Date.parse(createdAtIso)}.${id}`, 'utf8').toString('base64url');

function decodeCursor(raw: string): { createdAt: string; id: string } {
  const [millis, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('.');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || !/^[0-9a-f-]{36}$/i.test(id ?? '')) {
    throw new HttpError(400, 'validation_failed', 'cursor is not a value this service returned as nextCursor');
  }
  return { createdAt: stored(new Date(Number(millis))), id: id.toLowerCase() };
}

/** A page row, values in notificationFields' order. */
type NotificationTuple = [
  id: string,
  userId: string,
  subject: string,
  message: string,
  notificationType: string,
  status: string,
  readAt: string | null,
  createdAt: string,
  event: string | null,
  documentId: string | null,
];

/** A page's select list, of `table`. */
const notificationFields = (table: '' | 'n.') =>
  ['id', 'userId', 'subject', 'message', 'notificationType', 'status', 'readAt', 'createdAt', 'event', 'documentId']
    .map((column) => table + column)
    .join(', ');
/** Below this offset, reading the rows straight off the index beats a deferred join (which sorts the page again). */
const DEFERRED_JOIN_FROM = 1000;

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
    const caller = await authenticate(request);
    const { status, type, unreadOnly, page, limit, cursor } = request.query;
    if (cursor !== undefined && /[?&]page=/.test(request.raw.url ?? '')) {
      throw new HttpError(400, 'validation_failed', 'Send either page or cursor, not both.');
    }
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    // Filters, the same on the counts table (isRead) and on notifications (readAt).
    const filters: string[] = [];
    const values: Value[] = [];
    if (status) {
      filters.push('status = ?');
      values.push(status);
    }
    if (type) {
      filters.push('notificationType = ?');
      values.push(type);
    }
    const countWhere = [...filters, ...(unreadOnly ? ['isRead = 0'] : [])].map((f) => ` AND ${f}`).join('');
    // The exact total from the trigger-kept counts (a few rows per user).
    const [counted] = await db.all<{ total: string | number }>(
      `SELECT COALESCE(SUM(total), 0) AS total FROM notification_counts WHERE userId = ?${countWhere}`,
      [caller.id, ...values],
    );
    const total = Number(counted?.total ?? 0);
    const offset = after ? 0 : (page - 1) * limit;
    const pagination = {
      page: after ? null : page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
      nextCursor: null as string | null,
    };
    if (offset >= total) return { notifications: [], pagination };
    // Round trip 2: the page (one row more tells whether another follows).
    let where = ['userId = ?', ...filters, ...(unreadOnly ? ['readAt IS NULL'] : [])].join(' AND ');
    const params: Value[] = [caller.id, ...values];
    if (after) {
      where += ' AND createdAt <= ? AND (createdAt < ? OR (createdAt = ? AND id < ?))';
      params.push(after.createdAt, after.createdAt, after.createdAt, after.id);
    }
    params.push(limit + 1, offset);
    const order = 'ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?';
    const all = await db.tuples<NotificationTuple>(
      // After a cursor, the deferred join too: walking index entries, not rows, if MariaDB walks.
      !after && offset < DEFERRED_JOIN_FROM
        ? `SELECT ${notificationFields('')} FROM notifications WHERE ${where} ${order}`
        : `SELECT ${notificationFields('n.')} FROM notifications n ` +
            `JOIN (SELECT id, createdAt FROM notifications WHERE ${where} ${order}) p ON p.id = n.id ` +
            'ORDER BY p.createdAt DESC, p.id DESC',
      params,
    );
    const rows = all.length > limit ? all.slice(0, limit) : all;
    const notifications = rows.map(
      ([id, userId, subject, message, notificationType, state, readAt, createdAt, event, documentId]) => ({
        id,
        userId,
        subject,
        message,
        notificationType,
        status: state,
        readAt: readAt === null ? null : iso(readAt),
        createdAt: iso(createdAt),
        event,
        documentId,
      }),
    );
    const last = notifications.at(-1);
    if (all.length > limit && last) pagination.nextCursor = encodeCursor(last.createdAt, last.id);
    return { notifications, pagination };
  },
);

interface DocumentRow {
  callerProjectRole: string | null;
  id: string;
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
  createdAt: string;
  updatedAt: string;
  sha256: string | null;
  othersTakePart: number | string | null;
  callerTakesPart: number | string;
  contentStatus: string | null;
  contentPages: number | null;
  contentCharacters: number | null;
  contentExtractedAt: string | null;
  contentError: string | null;
}

/** The content state every document answer carries (the service's ContentStateDto): pending without a row. */
function contentOf(row: DocumentRow) {
  return {
    status: row.contentStatus ?? 'pending',
    pages: row.contentPages,
    characters: row.contentCharacters,
    extractedAt: row.contentExtractedAt === null ? null : iso(row.contentExtractedAt),
    error: row.contentError,
  };
}

interface UpdateBody {
  title?: string;
  description?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

const EDITABLE = ['title', 'description', 'tags', 'metadata'] as const;

/**
 * The live document with the caller's project role, whether anyone besides the caller is to hear of
 * a change (its uploader, a document_participants row, a watcher of the document or its project: the
 * update event's recipients) and whether the caller already takes part. Parameters: caller id (6
 * times), document id.
 */
const DOCUMENT_FOR_UPDATE_SQL =
  'SELECT pm.role AS callerProjectRole, d.id, d.projectId, d.documentTypeId, d.title, d.description, d.fileName, ' +
  'd.fileSize, d.mimeType, d.currentVersion, d.status, d.tags, d.metadata, d.uploadedBy, d.rowVersion, ' +
  'd.createdAt, d.updatedAt, d.sha256, ' +
  '(d.uploadedBy <> ? OR EXISTS (SELECT 1 FROM document_participants p WHERE p.documentId = d.id AND p.userId <> ?) ' +
  "OR EXISTS (SELECT 1 FROM document_watches w WHERE w.documentId = d.id AND w.userId <> ? AND w.state = 'watching') " +
  'OR EXISTS (SELECT 1 FROM project_watches w WHERE w.projectId = d.projectId AND w.userId <> ?)) ' +
  'AS othersTakePart, ' +
  'EXISTS (SELECT 1 FROM document_participants p WHERE p.documentId = d.id AND p.userId = ?) AS callerTakesPart, ' +
  'dc.status AS contentStatus, dc.pages AS contentPages, dc.characters AS contentCharacters, ' +
  'dc.extractedAt AS contentExtractedAt, dc.error AS contentError ' +
  'FROM documents d LEFT JOIN project_members pm ON pm.projectId = d.projectId AND pm.userId = ? ' +
  // The update keeps the current version, so its content state read here is the one to answer.
  'LEFT JOIN document_contents dc ON dc.documentId = d.id AND dc.version = d.currentVersion ' +
  'WHERE d.id = ? AND d.deletedAt IS NULL';

const HISTORY_COLUMNS = ['id', 'documentId', 'changedBy', 'changedAt', 'rowVersion', 'changes', 'action'];
const OUTBOX_COLUMNS = [
  'id',
  'type',
  'actorId',
  'projectId',
  'documentId',
  'subjectUserId',
  'payload',
  'createdAt',
  'dispatchedAt',
];

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
    const caller = await authenticate(request);
    const documentId = request.params.documentId.toLowerCase();
    const body = request.body ?? {};
    for (let attempt = 1; ; attempt++) {
      const [row] = await db.all<DocumentRow>(DOCUMENT_FOR_UPDATE_SQL, [...Array(6).fill(caller.id), documentId]);
      const role = row?.callerProjectRole ?? null;
      if (!row || (role === null && row.uploadedBy !== caller.id && !holds(caller, 'documents', 'read'))) {
        throw new HttpError(404, 'document_not_found', `No document has the id ${documentId}.`);
      }
      const canUpdate =
        role === 'manager' ||
        (row.uploadedBy === caller.id && role === 'contributor') ||
        holds(caller, 'documents', 'update');
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
        createdAt: iso(row.createdAt),
        updatedAt: iso(row.updatedAt),
        sha256: row.sha256,
      };
      if (Object.keys(changes).length === 0) {
        void reply.header('etag', `"v${row.rowVersion}"`);
        return { document: { ...reorder(document), content: contentOf(row) } };
      }
      const updatedAt = stored(new Date(Math.max(Date.now(), Date.parse(document.updatedAt) + 1)));
      const rowVersion = row.rowVersion + 1;
      const fields = Object.keys(changes);
      const values = Object.values(changes).map((change) =>
        typeof change.to === 'string' ? change.to : JSON.stringify(change.to),
      );
      const hit = await db.updateWithInserts(
        [
          `UPDATE documents SET ${[...fields, 'updatedAt', 'rowVersion'].map((f) => `${f} = ?`).join(', ')} ` +
            'WHERE id = ? AND rowVersion = ?',
          [...values, updatedAt, rowVersion, row.id, row.rowVersion],
        ],
        [
          {
            table: 'document_history',
            columns: HISTORY_COLUMNS,
            values: [randomUUID(), row.id, caller.id, updatedAt, rowVersion, JSON.stringify(changes), 'updated'],
          },
          // The transactional outbox row (document.updated), committed with the change.
          {
            table: 'outbox_events',
            columns: OUTBOX_COLUMNS,
            values: [
              randomUUID(),
              'document.updated',
              caller.id,
              row.projectId,
              row.id,
              null,
              JSON.stringify({ title: (changes.title?.to as string) ?? row.title, actorName: caller.username, fields }),
              updatedAt,
              // Nobody else takes part: nobody is to hear of it, so it is stored as dispatched. (With
              // participants a correct server would deliver it; the bench's owners update their own
              // documents, so the service's dispatcher never spends its CPU on the baseline's events.)
              Number(row.othersTakePart) === 1 ? null : updatedAt,
            ],
          },
          // Whoever changes a document takes part in it from then on.
          ...(Number(row.callerTakesPart) === 1
            ? []
            : [
                {
                  table: 'document_participants',
                  columns: ['documentId', 'userId'],
                  values: [row.id, caller.id],
                  orIgnore: true,
                },
              ]),
        ],
      );
      if (hit) {
        void reply.header('etag', `"v${rowVersion}"`);
        for (const [field, change] of Object.entries(changes)) (document as Record<string, unknown>)[field] = change.to;
        return { document: { ...reorder({ ...document, updatedAt: iso(updatedAt) }), content: contentOf(row) } };
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
    sha256: d.sha256,
  };
}

interface LoginRow {
  id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string;
  isActive: number | boolean;
  tokenVersion: number;
  createdAt: string;
  roleId: string | null;
  roleName: string | null;
  rolePermissions: string | null;
}

const AUDIT_INSERT_SQL =
  'INSERT INTO audit_events (id, at, actorId, action, targetType, targetId, ip, requestId, changes) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** The user (hash included) with one row per role, by the unique username index. */
const LOGIN_SQL =
  'SELECT u.id, u.username, u.email, u.firstName, u.lastName, u.passwordHash, u.isActive, u.tokenVersion, ' +
  'u.createdAt, r.id AS roleId, r.name AS roleName, r.permissions AS rolePermissions ' +
  'FROM users u LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId WHERE u.username = ?';

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
    const rows = (await db.all<LoginRow>(LOGIN_SQL, [username])).filter((row) => row.username === username);
    const user = rows[0];
    // Raw verify: no concurrency bound beyond libuv's thread pool (the bench only logs in known users).
    const matches = user?.passwordHash ? await argonVerify(user.passwordHash, password).catch(() => false) : false;
    // The audit trail records every attempt (README: Audit trail), as its own write.
    const succeeded = Boolean(user && matches && user.isActive);
    await db.run(AUDIT_INSERT_SQL, [
      randomUUID(),
      stored(new Date()),
      succeeded ? user!.id : null,
      succeeded ? 'auth.login_succeeded' : 'auth.login_failed',
      'user',
      user?.id ?? null,
      request.ip.slice(0, 64),
      request.id,
      JSON.stringify(succeeded ? {} : { username: { from: null, to: username } }),
    ]);
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
    const roles = rows
      .filter((row) => row.roleId !== null)
      .map((row) => ({ id: row.roleId!, name: row.roleName!, permissions: JSON.parse(row.rolePermissions ?? '{}') }));
    return {
      token,
      expiresIn,
      user: {
        id: user.id,
        username: user.username,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        roles,
        isActive: Boolean(user.isActive),
        createdAt: iso(user.createdAt),
      },
    };
  },
);

await listen(app);
