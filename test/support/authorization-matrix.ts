// The authorization matrix: every route the application registers, called as each persona, with
// the status each must get. The table below is the documentation: docs/operations.md's "Authorization
// matrix" section is rendered from it (renderMatrix) and a test fails when the two differ.
// Requests are harmless on purpose: write bodies are {} or ask for what already is (so an allowed
// caller gets 200, 400 or 404, never a change) and ids are unknown, except where a row says
// `fresh`: then each persona acts on an object of its own, made just before its call (a draft,
// in-review or trashed document of the contributor, or the member `tess` put back into the
// project), so the row shows who may really delete, publish, restore or remove.
// The document rows use a document of the contributor in the project; the project rows that project.

export const PERSONAS = [
  'anonymous',
  'viewer',
  'contributor',
  'anotherContributor',
  'manager',
  'nonMember',
  'editor',
  'admin',
  'deactivated',
] as const;
export type Persona = (typeof PERSONAS)[number];

export const PERSONA_NOTES: Record<Persona, string> = {
  anonymous: 'no token',
  viewer: 'vera: role user, viewer of the project',
  contributor: 'alice: role user, contributor of the project, uploader of the document',
  anotherContributor: 'bob: role user, contributor of the project, not the uploader',
  manager: 'mona: role user, manager of the project',
  nonMember: 'nora: role user, member of no project',
  editor: 'erin: roles editor + user (documents: read, update), not a member of the project',
  admin: 'admin: role admin (every permission), not a member of the project',
  deactivated: 'a token issued before its user (role admin) was deactivated',
};

/** What a `fresh` row acts on: made anew for each persona just before its call. */
export type Fresh = 'draft document' | 'document in review' | 'trashed document' | 'locked document' | 'member';

export interface Row {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Route as Nest registers it (":param" placeholders). */
  route: string;
  /** Who may call it, as declared on the route. */
  rule: string;
  body?: object;
  fresh?: Fresh;
  /** An event stream: the status is read from the response head, then the connection is ended. */
  stream?: true;
  expected: [
    anonymous: number,
    viewer: number,
    contributor: number,
    anotherContributor: number,
    manager: number,
    nonMember: number,
    editor: number,
    admin: number,
    deactivated: number,
  ];
}

export type Expected = Row['expected'];
/** Every persona gets `status`. */
const everyone = (status: number): Expected => [status, status, status, status, status, status, status, status, status];
/** Every authenticated persona gets `status`. */
const anyUser = (status: number): Expected => [401, status, status, status, status, status, status, status, 401];
/** Only the holder of the permission (admin) gets `status`; everyone else who is logged in 403. */
const adminOnly = (status: number): Expected => [401, 403, 403, 403, 403, 403, 403, status, 401];
/** A document read: every member of the project and documents:read; anyone else is told it does not exist. */
const READERS: Expected = [401, 200, 200, 200, 200, 404, 200, 200, 401];
/** A project read: its members and projects:manage; anyone else is told it does not exist. */
const PROJECT_READERS: Expected = [401, 200, 200, 200, 200, 404, 404, 200, 401];
/** A status in place of the readers' 200 (e.g. 204 for watching). */
const readersWith = (status: number, readers: Expected): Expected =>
  readers.map((expected) => (expected === 200 ? status : expected)) as Expected;

export const MATRIX: Row[] = [
  { method: 'GET', route: '/health/live', rule: 'public', expected: everyone(200) },
  { method: 'GET', route: '/health/ready', rule: 'public', expected: everyone(200) },
  { method: 'POST', route: '/api/auth/login', rule: 'public', body: {}, expected: everyone(400) },
  { method: 'GET', route: '/api/auth/me', rule: 'authenticated', expected: anyUser(200) },
  { method: 'POST', route: '/api/auth/password', rule: 'authenticated', body: {}, expected: anyUser(400) },
  { method: 'PATCH', route: '/api/auth/me', rule: 'authenticated', body: {}, expected: anyUser(400) },
  { method: 'GET', route: '/api/auth/me/watches', rule: 'authenticated', expected: anyUser(200) },
  { method: 'GET', route: '/api/notifications/threads', rule: 'authenticated', expected: anyUser(200) },
  {
    method: 'POST',
    route: '/api/notifications/threads/:documentId/read',
    rule: 'authenticated',
    body: {},
    expected: anyUser(200),
  },
  { method: 'POST', route: '/api/notifications/snooze', rule: 'authenticated', body: {}, expected: anyUser(400) },
  { method: 'DELETE', route: '/api/notifications/snooze', rule: 'authenticated', expected: anyUser(204) },
  {
    method: 'PUT',
    route: '/api/documents/:documentId/watch',
    rule: 'policy: document',
    body: {},
    expected: readersWith(204, READERS),
  },
  {
    method: 'DELETE',
    route: '/api/documents/:documentId/watch',
    rule: 'policy: document',
    expected: readersWith(204, READERS),
  },
  {
    method: 'PUT',
    route: '/api/documents/:documentId/mute',
    rule: 'policy: document',
    body: {},
    expected: readersWith(204, READERS),
  },
  {
    method: 'DELETE',
    route: '/api/documents/:documentId/mute',
    rule: 'policy: document',
    expected: readersWith(204, READERS),
  },
  {
    method: 'PUT',
    route: '/api/projects/:projectId/watch',
    rule: 'policy: project',
    body: {},
    expected: readersWith(204, PROJECT_READERS),
  },
  {
    method: 'DELETE',
    route: '/api/projects/:projectId/watch',
    rule: 'policy: project',
    expected: readersWith(204, PROJECT_READERS),
  },
  { method: 'GET', route: '/api/notifications', rule: 'authenticated', expected: anyUser(200) },
  {
    method: 'GET',
    route: '/api/notifications/unread-count',
    rule: 'authenticated',
    expected: anyUser(200),
  },
  {
    method: 'POST',
    route: '/api/notifications/read-all',
    rule: 'authenticated',
    // Only notifications created before 2000: allowed callers get 200 and nothing changes.
    body: { before: '2000-01-01T00:00:00.000Z' },
    expected: anyUser(200),
  },
  {
    method: 'GET',
    route: '/api/notifications/preferences',
    rule: 'authenticated',
    expected: anyUser(200),
  },
  {
    method: 'PUT',
    route: '/api/notifications/preferences',
    rule: 'authenticated',
    body: {},
    expected: anyUser(400),
  },
  {
    method: 'POST',
    route: '/api/notifications/stream-tickets',
    rule: 'authenticated',
    expected: anyUser(201),
  },
  {
    method: 'GET',
    route: '/api/notifications/stream',
    // Public to the guard: the handler authenticates by the header or a single-use ticket.
    rule: 'public',
    stream: true,
    expected: anyUser(200),
  },
  {
    method: 'GET',
    route: '/api/notifications/:notificationId',
    rule: 'authenticated',
    expected: anyUser(404),
  },
  {
    method: 'PATCH',
    route: '/api/notifications/:notificationId',
    rule: 'authenticated',
    body: {},
    expected: anyUser(400),
  },
  {
    method: 'DELETE',
    route: '/api/notifications/:notificationId',
    rule: 'authenticated',
    expected: anyUser(404),
  },
  {
    method: 'PUT',
    route: '/api/documents/:documentId',
    rule: 'policy: document',
    body: {},
    // A reader who may not change it: 403; its uploader, the manager, documents:update: 200.
    expected: [401, 403, 200, 403, 200, 404, 200, 200, 401],
  },
  { method: 'GET', route: '/api/documents/:documentId/history', rule: 'policy: document', expected: READERS },
  // A list: everyone gets the documents they may read (none for the non-member).
  { method: 'GET', route: '/api/documents', rule: 'policy: document', expected: anyUser(200) },
  // A JSON body is refused (415) before the project is read.
  { method: 'POST', route: '/api/documents', rule: 'policy: document', expected: anyUser(415) },
  { method: 'GET', route: '/api/documents/:documentId', rule: 'policy: document', expected: READERS },
  { method: 'GET', route: '/api/documents/:documentId/content', rule: 'policy: document', expected: READERS },
  { method: 'HEAD', route: '/api/documents/:documentId/content', rule: 'policy: document', expected: READERS },
  { method: 'GET', route: '/api/documents/:documentId/versions', rule: 'policy: document', expected: READERS },
  { method: 'GET', route: '/api/documents/:documentId/text', rule: 'policy: document', expected: READERS },
  { method: 'GET', route: '/api/documents/:documentId/preview', rule: 'policy: document', expected: READERS },
  {
    method: 'POST',
    route: '/api/documents/:documentId/versions',
    rule: 'policy: document',
    // A JSON body is refused (415), after the change permission, which is checked before any byte is read.
    expected: [401, 403, 415, 403, 415, 404, 415, 415, 401],
  },
  { method: 'GET', route: '/api/documents/trash', rule: 'policy: document', expected: anyUser(200) },
  {
    method: 'POST',
    route: '/api/documents/:documentId/status',
    rule: 'policy: document',
    body: { status: 'published' },
    fresh: 'document in review',
    // Publishing: the project manager or documents:publish.
    expected: [401, 403, 403, 403, 200, 404, 403, 200, 401],
  },
  {
    method: 'POST',
    route: '/api/documents/:documentId/restore',
    rule: 'policy: document',
    fresh: 'trashed document',
    // Whoever could delete it; anyone else is not told it is in the trash.
    expected: [401, 404, 200, 404, 200, 404, 404, 200, 401],
  },
  {
    method: 'DELETE',
    route: '/api/documents/:documentId',
    rule: 'policy: document',
    fresh: 'draft document',
    // Its uploader, the project manager, documents:delete.
    expected: [401, 403, 204, 403, 204, 404, 403, 204, 401],
  },
  { method: 'GET', route: '/api/documents/:documentId/comments', rule: 'policy: document', expected: READERS },
  // The body is validated before the document is read: {} is 400 for every caller with a token.
  {
    method: 'POST',
    route: '/api/documents/:documentId/comments',
    rule: 'policy: document',
    body: {},
    expected: anyUser(400),
  },
  { method: 'PATCH', route: '/api/comments/:commentId', rule: 'policy: document', body: {}, expected: anyUser(400) },
  // An unknown comment: nobody is told more than that it does not exist.
  { method: 'DELETE', route: '/api/comments/:commentId', rule: 'policy: document', expected: anyUser(404) },
  { method: 'GET', route: '/api/documents/:documentId/lock', rule: 'policy: document', expected: READERS },
  {
    method: 'POST',
    route: '/api/documents/:documentId/lock',
    rule: 'policy: document',
    body: {},
    fresh: 'draft document',
    // Whoever may change the document.
    expected: [401, 403, 200, 403, 200, 404, 200, 200, 401],
  },
  {
    method: 'DELETE',
    route: '/api/documents/:documentId/lock',
    rule: 'policy: document',
    fresh: 'locked document',
    // Its holder (the contributor), the project manager, documents:update.
    expected: [401, 403, 204, 403, 204, 404, 204, 204, 401],
  },
  // The body is validated before the document is read: {} is 400 for every caller with a token.
  {
    method: 'POST',
    route: '/api/documents/:documentId/review',
    rule: 'policy: document',
    body: {},
    expected: anyUser(400),
  },
  {
    method: 'POST',
    route: '/api/documents/:documentId/review/decision',
    rule: 'policy: document',
    body: {},
    expected: anyUser(400),
  },
  // The document was never reviewed: readers are told so, others that it does not exist (both 404).
  { method: 'GET', route: '/api/documents/:documentId/review', rule: 'policy: document', expected: anyUser(404) },
  // assignedTo=me is required.
  { method: 'GET', route: '/api/reviews', rule: 'policy: document', expected: anyUser(400) },
  {
    method: 'POST',
    route: '/api/documents/:documentId/shares',
    rule: 'policy: document',
    body: {},
    expected: anyUser(400),
  },
  {
    method: 'GET',
    route: '/api/documents/:documentId/shares',
    rule: 'policy: document',
    // Contributors and managers of the project, documents:update.
    expected: [401, 403, 200, 200, 200, 404, 200, 200, 401],
  },
  { method: 'DELETE', route: '/api/shares/:shareId', rule: 'policy: document', expected: anyUser(404) },
  // An unknown token: the same 404 for everyone, logged in or not.
  { method: 'GET', route: '/s/:link', rule: 'public', expected: everyone(404) },
  { method: 'GET', route: '/api/projects', rule: 'policy: project', expected: anyUser(200) },
  // Creating a project needs projects:manage, whatever one's role in other projects.
  { method: 'POST', route: '/api/projects', rule: 'projects:manage', body: {}, expected: adminOnly(400) },
  { method: 'GET', route: '/api/projects/:projectId', rule: 'policy: project', expected: PROJECT_READERS },
  {
    method: 'PATCH',
    route: '/api/projects/:projectId',
    rule: 'policy: project',
    body: {},
    expected: [401, 403, 403, 403, 200, 404, 404, 200, 401],
  },
  { method: 'GET', route: '/api/projects/:projectId/members', rule: 'policy: project', expected: PROJECT_READERS },
  {
    method: 'PUT',
    route: '/api/projects/:projectId/members/:userId',
    rule: 'policy: project',
    // tess is a viewer already: nothing changes.
    body: { role: 'viewer' },
    expected: [401, 403, 403, 403, 200, 404, 404, 200, 401],
  },
  {
    method: 'DELETE',
    route: '/api/projects/:projectId/members/:userId',
    rule: 'policy: project',
    fresh: 'member',
    expected: [401, 403, 403, 403, 204, 404, 404, 204, 401],
  },
  { method: 'GET', route: '/api/document-types', rule: 'authenticated', expected: anyUser(200) },
  { method: 'POST', route: '/api/document-types', rule: 'documentTypes:manage', body: {}, expected: adminOnly(400) },
  {
    method: 'PATCH',
    route: '/api/document-types/:documentTypeId',
    rule: 'documentTypes:manage',
    body: {},
    expected: adminOnly(404),
  },
  {
    method: 'DELETE',
    route: '/api/document-types/:documentTypeId',
    rule: 'documentTypes:manage',
    expected: adminOnly(404),
  },
  { method: 'GET', route: '/api/document-types/:documentTypeId/fields', rule: 'authenticated', expected: anyUser(404) },
  {
    method: 'POST',
    route: '/api/document-types/:documentTypeId/fields',
    rule: 'documentTypes:manage',
    body: {},
    expected: adminOnly(400),
  },
  {
    method: 'PATCH',
    route: '/api/document-types/:documentTypeId/fields/:key',
    rule: 'documentTypes:manage',
    body: {},
    expected: adminOnly(404),
  },
  {
    method: 'DELETE',
    route: '/api/document-types/:documentTypeId/fields/:key',
    rule: 'documentTypes:manage',
    expected: adminOnly(404),
  },
  { method: 'GET', route: '/api/users', rule: 'users:manage', expected: adminOnly(200) },
  { method: 'POST', route: '/api/users', rule: 'users:manage', body: {}, expected: adminOnly(400) },
  { method: 'GET', route: '/api/users/:userId', rule: 'users:manage', expected: adminOnly(404) },
  { method: 'PATCH', route: '/api/users/:userId', rule: 'users:manage', body: {}, expected: adminOnly(404) },
  { method: 'POST', route: '/api/users/:userId/password', rule: 'users:manage', body: {}, expected: adminOnly(400) },
  { method: 'GET', route: '/api/roles', rule: 'roles:manage', expected: adminOnly(200) },
  { method: 'POST', route: '/api/roles', rule: 'roles:manage', body: {}, expected: adminOnly(400) },
  { method: 'PATCH', route: '/api/roles/:roleId', rule: 'roles:manage', body: {}, expected: adminOnly(404) },
  { method: 'DELETE', route: '/api/roles/:roleId', rule: 'roles:manage', expected: adminOnly(404) },
  { method: 'GET', route: '/api/audit-events', rule: 'audit:read', expected: adminOnly(200) },
  // The body is validated first; a valid one is then 403 unless projects:manage (global) or a manager of the project.
  {
    method: 'POST',
    route: '/api/webhooks',
    rule: 'policy: webhook',
    body: {},
    expected: anyUser(400),
  },
  // Unknown hooks: nobody is told more than that they do not exist.
  { method: 'GET', route: '/api/webhooks/:webhookId', rule: 'policy: webhook', expected: anyUser(404) },
  {
    method: 'PATCH',
    route: '/api/webhooks/:webhookId',
    rule: 'policy: webhook',
    body: {},
    expected: anyUser(404),
  },
  { method: 'DELETE', route: '/api/webhooks/:webhookId', rule: 'policy: webhook', expected: anyUser(404) },
  { method: 'POST', route: '/api/webhooks/:webhookId/rotate-secret', rule: 'policy: webhook', expected: anyUser(404) },
  { method: 'GET', route: '/api/webhooks/:webhookId/deliveries', rule: 'policy: webhook', expected: anyUser(404) },
  {
    method: 'POST',
    route: '/api/webhooks/:webhookId/deliveries/:deliveryId/replay',
    rule: 'policy: webhook',
    expected: anyUser(404),
  },
  // Saved searches are their owner's alone: an unknown (or someone else's) one is 404.
  { method: 'POST', route: '/api/saved-searches', rule: 'authenticated', body: {}, expected: anyUser(400) },
  { method: 'GET', route: '/api/saved-searches', rule: 'authenticated', expected: anyUser(200) },
  { method: 'GET', route: '/api/saved-searches/:savedSearchId', rule: 'authenticated', expected: anyUser(404) },
  {
    method: 'PATCH',
    route: '/api/saved-searches/:savedSearchId',
    rule: 'authenticated',
    body: {},
    expected: anyUser(404),
  },
  { method: 'DELETE', route: '/api/saved-searches/:savedSearchId', rule: 'authenticated', expected: anyUser(404) },
  {
    method: 'GET',
    route: '/api/saved-searches/:savedSearchId/documents',
    rule: 'authenticated',
    expected: anyUser(404),
  },
  { method: 'GET', route: '/api/audit-events/head', rule: 'audit:read', expected: adminOnly(200) },
  { method: 'GET', route: '/api/audit-events/export', rule: 'audit:read', expected: adminOnly(200) },
  { method: 'GET', route: '/api/legal-holds', rule: 'legalHolds:manage', expected: adminOnly(200) },
  { method: 'POST', route: '/api/legal-holds', rule: 'legalHolds:manage', body: {}, expected: adminOnly(400) },
  { method: 'GET', route: '/api/legal-holds/:legalHoldId', rule: 'legalHolds:manage', expected: adminOnly(404) },
  { method: 'DELETE', route: '/api/legal-holds/:legalHoldId', rule: 'legalHolds:manage', expected: adminOnly(404) },
  // documents:read and documents:update: the editor's role grants both.
  {
    method: 'GET',
    route: '/api/admin/content',
    rule: 'documents:read',
    expected: [401, 403, 403, 403, 403, 403, 200, 200, 401],
  },
  {
    method: 'POST',
    route: '/api/admin/content/reindex',
    rule: 'documents:update',
    body: {},
    expected: [401, 403, 403, 403, 403, 403, 202, 202, 401],
  },
  // Last: it revokes the persona's token.
  { method: 'POST', route: '/api/auth/logout', rule: 'authenticated', expected: anyUser(204) },
];

/**
 * No escalation through users:manage: what a user whose only permission is users:manage (uma) gets
 * when granting roles or touching accounts. `admin` holds more than uma; `nora` (role user) does not.
 */
/** The README table: one row per route, one column per persona. */
export function renderMatrix(): string {
  const header = `| Route | Rule | ${PERSONAS.join(' | ')} |`;
  const rule = `|---|---|${PERSONAS.map(() => '---').join('|')}|`;
  const rows = MATRIX.map((row) => `| \`${row.method} ${row.route}\` | ${row.rule} | ${row.expected.join(' | ')} |`);
  const notes = PERSONAS.map((persona) => `- \`${persona}\`: ${PERSONA_NOTES[persona]}`);
  return [header, rule, ...rows, '', ...notes].join('\n');
}
