import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll } from 'vitest';
import { Transactions } from '../../src/database/transactions.js';
import { DocumentCounts } from '../../src/documents/document-counts.repository.js';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { identityKey } from '../../src/common/text/identity-key.js';
import { ProjectMember } from '../../src/projects/entities/project-member.entity.js';
import { Project } from '../../src/projects/entities/project.entity.js';
import type { ProjectRole } from '../../src/projects/project-role.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import type { DatabaseKind } from './databases.js';
import { createTestApp, type TestApp } from './test-app.js';

/**
 * Extra people, projects and documents for the document list and workflow suites, written straight
 * to the database (the seeded users all share one project role per project, too few for permission
 * tables). Passwords are the seeded users' (TEST_PASSWORD), so `t.login(name)` works.
 */
export async function addUser(
  t: TestApp,
  username: string,
  projects: Record<string, ProjectRole> = {},
  roleNames: string[] = ['user'],
): Promise<string> {
  const [alice] = await t.dataSource.query<{ passwordHash: string }[]>(
    "SELECT passwordHash FROM users WHERE username = 'alice'",
  );
  const roles = (await t.dataSource.getRepository(Role).find()).filter((role) => roleNames.includes(role.name));
  const id = randomUUID();
  await t.dataSource.getRepository(User).save(
    Object.assign(new User(), {
      id,
      username,
      usernameKey: identityKey(username),
      email: `${username}@example.com`,
      emailKey: identityKey(`${username}@example.com`),
      firstName: username,
      lastName: 'Test',
      passwordHash: alice.passwordHash,
      isActive: true,
      tokenVersion: 0,
      createdAt: new Date(),
      roles,
    }),
  );
  for (const [projectId, role] of Object.entries(projects)) await setMember(t, projectId, id, role);
  return id;
}

export async function setMember(t: TestApp, projectId: string, userId: string, role: ProjectRole): Promise<void> {
  await t.dataSource
    .getRepository(ProjectMember)
    .save(Object.assign(new ProjectMember(), { projectId, userId, role, createdAt: new Date() }));
}

export async function addProject(t: TestApp, name: string): Promise<string> {
  const id = randomUUID();
  await t.dataSource.getRepository(Project).insert({ id, name, description: '', createdAt: new Date() });
  return id;
}

/** Moves a document to another project as an operator would in SQL (no route moves documents), counts included. */
export async function moveDocument(t: TestApp, id: string, projectId: string): Promise<void> {
  await changeDocument(t, id, { projectId });
}

/** A change no route makes (project, type), with its counts moved in the same transaction as the service would. */
export async function changeDocument(
  t: TestApp,
  id: string,
  changes: Partial<Pick<Document, 'projectId' | 'documentTypeId'>>,
): Promise<void> {
  // Through the service's transactions: serialised with its writes on SQLite, retried on a MariaDB deadlock.
  await t.app.get(Transactions).run(async (manager) => {
    const before = await manager.findOneByOrFail(Document, { id });
    await manager.update(Document, { id }, changes);
    await new DocumentCounts().move(manager, [{ before, after: Object.assign(new Document(), before, changes) }]);
  });
}

export interface DocumentFixture {
  projectId: string;
  uploadedBy: string;
  title?: string;
  description?: string;
  fileName?: string;
  tags?: string[];
  status?: Document['status'];
  documentTypeId?: string;
  createdAt?: Date;
  updatedAt?: Date;
  deletedAt?: Date | null;
  deletedBy?: string | null;
}

export async function addDocument(t: TestApp, fixture: DocumentFixture): Promise<string> {
  const id = randomUUID();
  const at = fixture.updatedAt ?? new Date();
  const document = {
    id,
    projectId: fixture.projectId,
    documentTypeId: fixture.documentTypeId ?? t.seed.documentTypes[0].id,
    title: fixture.title ?? 'untitled',
    description: fixture.description ?? '',
    fileName: fixture.fileName ?? 'file.pdf',
    fileSize: 100,
    mimeType: 'application/pdf',
    currentVersion: 1,
    status: fixture.status ?? 'draft',
    tags: fixture.tags ?? [],
    metadata: {},
    fields: null,
    uploadedBy: fixture.uploadedBy,
    rowVersion: 1,
    createdAt: fixture.createdAt ?? at,
    updatedAt: at,
    sha256: null,
    deletedAt: fixture.deletedAt ?? null,
    deletedBy: fixture.deletedBy ?? null,
  } satisfies Document;
  await t.dataSource.transaction(async (manager) => {
    await manager.insert(Document, document);
    await new DocumentCounts().move(manager, [{ before: null, after: document }]);
  });
  return id;
}

/** Every field of a document in a response, sorted. */
export const DOCUMENT_FIELDS = [
  'content',
  'createdAt',
  'currentVersion',
  'description',
  'documentTypeId',
  'fields',
  'fileName',
  'fileSize',
  'id',
  'metadata',
  'mimeType',
  'projectId',
  'sha256',
  'status',
  'tags',
  'title',
  'updatedAt',
  'uploadedBy',
];
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** {"a":{"a":...{}}}: an object nested `levels` deep (a lone {} is one level). */
export function nestedObject(levels: number): Json {
  let value: Json = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

export interface DocumentUpdateState {
  t: TestApp;
  tokens: Record<'admin' | 'alice' | 'bob' | 'erin', string>;
  /** Documents by owner, in seed order. */
  docs: { alice: string[]; bob: string[]; admin: string[] };
}

/**
 * The app and helpers of the metadata update specs (documents-update*.e2e-spec.ts): registers the
 * suite's beforeAll/afterAll (a fresh database per suite) and answers `state`, filled once it ran.
 */
export function documentUpdateSuite(kind: DatabaseKind) {
  const state = {} as DocumentUpdateState;

  beforeAll(async () => {
    state.t = await createTestApp(kind);
    const t = state.t;
    state.tokens = {
      admin: await t.login('admin'),
      alice: await t.login('alice'),
      bob: await t.login('bob'),
      erin: await t.login('erin'),
    };
    const owned = (username: string) =>
      t.seed.documents.filter((document) => document.uploadedBy === t.user(username).id).map((document) => document.id);
    state.docs = { alice: owned('alice'), bob: owned('bob'), admin: owned('admin') };
  });

  afterAll(async () => {
    await state.t?.close();
  });

  const api = () => request(state.t.url);
  const put = (id: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) => {
    const req = api().put(`/api/documents/${id}`).set('Content-Type', 'application/json');
    if (token) req.set('Authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const history = (id: string, token: string) =>
    api().get(`/api/documents/${id}/history`).set('Authorization', `Bearer ${token}`);

  const row = (id: string) => state.t.dataSource.getRepository(Document).findOneByOrFail({ id });
  const historyCount = (id: string) => state.t.dataSource.getRepository(DocumentHistory).countBy({ documentId: id });
  const rowVersion = async (id: string): Promise<number> => {
    const rows: { rowVersion: number | string }[] = await state.t.dataSource.query(
      'SELECT rowVersion FROM documents WHERE id = ?',
      [id],
    );
    return Number(rows[0].rowVersion);
  };
  /** Everything stored about a document, to prove a rejected request changed nothing. */
  const snapshot = async (id: string) => ({ document: await row(id), history: await historyCount(id) });

  /** The JSON a document row must produce, computed independently of the service's mapper. */
  const asJson = (document: Document) => ({
    id: document.id,
    projectId: document.projectId,
    documentTypeId: document.documentTypeId,
    title: document.title,
    description: document.description,
    fileName: document.fileName,
    fileSize: document.fileSize,
    mimeType: document.mimeType,
    currentVersion: document.currentVersion,
    status: document.status,
    tags: document.tags,
    metadata: document.metadata,
    fields: document.fields ?? {},
    uploadedBy: document.uploadedBy,
    createdAt: document.createdAt.toISOString(),
    updatedAt: document.updatedAt.toISOString(),
    sha256: document.sha256,
    // Seeded documents are never queued for extraction (src/content): their content stays pending.
    content: { status: 'pending', pages: null, characters: null, extractedAt: null, error: null },
  });

  return { state, api, put, history, row, historyCount, rowVersion, snapshot, asJson };
}
