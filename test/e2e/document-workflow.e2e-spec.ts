import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentTrashService } from '../../src/documents/document-trash.service.js';
import { TrashPurgeScheduler } from '../../src/documents/trash-purge.scheduler.js';
import { FileStore } from '../../src/storage/file-store.js';
import type { LocalFileStore } from '../../src/storage/local-file-store.js';
import { StoredFiles } from '../../src/storage/stored-files.js';
import { addDocument, addUser, type DocumentFixture } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { expectError } from '../support/expect-error.js';

/** What a response says, in one comparable value. */
function outcome(response: Response): Record<string, unknown> {
  if (response.status >= 400) return { status: response.status, error: response.body.error };
  if (response.status === 204) return { status: 204, body: response.text };
  return { status: response.status, documentStatus: response.body.document?.status, etag: response.headers.etag };
}

/**
 * The personas of the permission tables, on a document alice uploaded to Apollo: vera views Apollo,
 * alice and bob contribute (bob is the "other contributor"), mara manages Apollo (a plain user),
 * erin is an editor (documents: read, update) and a contributor, admin holds every permission, nina
 * belongs to no project.
 */
const PERSONAS = ['viewer', 'contributor', 'otherContributor', 'manager', 'editor', 'admin', 'nonMember'] as const;
type Persona = (typeof PERSONAS)[number];
const USERNAME: Record<Persona, string> = {
  viewer: 'vera',
  contributor: 'alice',
  otherContributor: 'bob',
  manager: 'mara',
  editor: 'erin',
  admin: 'admin',
  nonMember: 'nina',
};

/** Status moves: [from, to, who may (200); readers who may not get 403, nina 404]. */
const SUBMITTERS: Persona[] = ['contributor', 'manager', 'editor', 'admin'];
const PUBLISHERS: Persona[] = ['manager', 'admin'];
const TRANSITIONS: [string, string, Persona[]][] = [
  ['draft', 'in_review', SUBMITTERS],
  ['in_review', 'draft', PUBLISHERS],
  ['in_review', 'published', PUBLISHERS],
  ['published', 'archived', PUBLISHERS],
  ['archived', 'draft', PUBLISHERS],
];
/** The outcome a persona must get: success for `allowed`, 404 for the non-member, else 403. */
function expected(
  allowed: Persona[],
  persona: Persona,
  success?: { status: string; etag: string },
  successStatus = 200,
): Record<string, unknown> {
  if (allowed.includes(persona)) {
    return successStatus === 204
      ? { status: 204, body: '' }
      : { status: successStatus, documentStatus: success?.status, etag: success?.etag };
  }
  return persona === 'nonMember' ? { status: 404, error: 'document_not_found' } : { status: 403, error: 'forbidden' };
}

const INVALID: [string, string][] = [
  ['draft', 'published'],
  ['draft', 'archived'],
  ['draft', 'draft'],
  ['in_review', 'archived'],
  ['published', 'draft'],
  ['published', 'in_review'],
  ['archived', 'published'],
  ['archived', 'in_review'],
];

describe.each(databasesUnderTest())('review workflow and trash on %s', (kind) => {
  let t: TestApp;
  let storageDir: string;
  const tokens = {} as Record<Persona, string>;
  const ids = {} as Record<Persona, string>;
  let apollo: string;

  const as = (persona: Persona) => `Bearer ${tokens[persona]}`;
  const setStatus = (id: string, persona: Persona, status: string, headers: Record<string, string> = {}) =>
    request(t.url).post(`/api/documents/${id}/status`).set('Authorization', as(persona)).set(headers).send({ status });
  const remove = (id: string, persona: Persona, query = '', headers: Record<string, string> = {}) =>
    request(t.url).delete(`/api/documents/${id}${query}`).set('Authorization', as(persona)).set(headers);
  const restore = (id: string, persona: Persona) =>
    request(t.url).post(`/api/documents/${id}/restore`).set('Authorization', as(persona));
  const trash = (persona: Persona, query = '') =>
    request(t.url).get(`/api/documents/trash${query}`).set('Authorization', as(persona));
  const history = (id: string, persona: Persona) =>
    request(t.url).get(`/api/documents/${id}/history`).set('Authorization', as(persona));
  const put = (id: string, persona: Persona, body: object) =>
    request(t.url).put(`/api/documents/${id}`).set('Authorization', as(persona)).send(body);
  const aliceDocument = (fields: Partial<DocumentFixture> = {}) =>
    addDocument(t, { projectId: apollo, uploadedBy: ids.contributor, title: 'workflow doc', ...fields });
  const row = async (id: string) =>
    (await t.dataSource.query<Record<string, unknown>[]>('SELECT * FROM documents WHERE id = ?', [id]))[0];
  const events = (id: string) =>
    t.dataSource.query<{ type: string; payload: string | Record<string, unknown> }[]>(
      'SELECT type, payload FROM outbox_events WHERE documentId = ? ORDER BY createdAt',
      [id],
    );
  const payload = (value: string | Record<string, unknown>) => (typeof value === 'string' ? JSON.parse(value) : value);

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'dms-workflow-'));
    t = await createTestApp(kind, { STORAGE_DIR: storageDir });
    // The suite runs the purge itself: stop the service's hourly one so it cannot get there first.
    t.app.get(TrashPurgeScheduler).onApplicationShutdown();
    apollo = t.seed.projects[0].id;
    await addUser(t, 'vera', { [apollo]: 'viewer' });
    await addUser(t, 'mara', { [apollo]: 'manager' });
    await addUser(t, 'nina');
    for (const persona of PERSONAS) {
      tokens[persona] = await t.login(USERNAME[persona]);
      ids[persona] = (
        await t.dataSource.query<{ id: string }[]>('SELECT id FROM users WHERE username = ?', [USERNAME[persona]])
      )[0].id;
    }
  });

  afterAll(async () => {
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  describe('POST /api/documents/{id}/status', () => {
    for (const [from, to, allowed] of TRANSITIONS) {
      it.each(PERSONAS)(`${from} → ${to} as %s`, async (persona) => {
        const id = await aliceDocument({ status: from as never });
        const response = await setStatus(id, persona, to);
        expect(outcome(response)).toEqual(expected(allowed, persona, { status: to, etag: '"v2"' }));
        expect((await row(id)).status).toBe(allowed.includes(persona) ? to : from);
      });
    }

    it.each(INVALID)('%s → %s is 409 invalid_transition, even for the admin', async (from, to) => {
      const id = await aliceDocument({ status: from as never });
      expectError(await setStatus(id, 'admin', to), 409, 'invalid_transition');
      expect((await row(id)).status).toBe(from);
      expect(Number((await row(id)).rowVersion)).toBe(1);
    });

    it('records the move in the history (status_changed) and the outbox (document.status_changed)', async () => {
      const id = await aliceDocument();
      expect((await setStatus(id, 'contributor', 'in_review')).status).toBe(200);
      expect((await setStatus(id, 'manager', 'published')).status).toBe(200);
      const entries = (await history(id, 'viewer')).body.history;
      expect(entries.map((entry: { action: string }) => entry.action)).toEqual(['status_changed', 'status_changed']);
      expect(entries[0]).toMatchObject({
        changedBy: ids.manager,
        rowVersion: 3,
        changes: { status: { from: 'in_review', to: 'published' } },
      });
      const outbox = await events(id);
      expect(outbox.map((event) => event.type)).toEqual(['document.status_changed', 'document.status_changed']);
      expect(payload(outbox[1].payload)).toMatchObject({ from: 'in_review', to: 'published', title: 'workflow doc' });
    });

    it('honours If-Match: a stale ETag is 412 and changes nothing', async () => {
      const id = await aliceDocument();
      const stale = await setStatus(id, 'contributor', 'in_review', { 'If-Match': '"v7"' });
      expectError(stale, 412, 'precondition_failed');
      expect((await row(id)).status).toBe('draft');
      expect((await setStatus(id, 'contributor', 'in_review', { 'If-Match': '"v1"' })).status).toBe(200);
    });

    it('refuses a status that does not exist (400) and an unknown document (404)', async () => {
      const id = await aliceDocument();
      expectError(await setStatus(id, 'admin', 'approved'), 400, 'validation_failed');
      expectError(await setStatus(randomUUID(), 'admin', 'in_review'), 404, 'document_not_found');
    });
  });

  describe('archived documents', () => {
    it('refuse metadata changes with 409 document_archived until moved back to draft', async () => {
      const id = await aliceDocument({ status: 'archived' });
      expectError(await put(id, 'manager', { title: 'changed' }), 409, 'document_archived');
      expectError(await put(id, 'admin', { title: 'changed' }), 409, 'document_archived');
      expect((await row(id)).title).toBe('workflow doc');
      expect((await setStatus(id, 'manager', 'draft')).status).toBe(200);
      expect((await put(id, 'contributor', { title: 'changed' })).status).toBe(200);
    });
  });

  describe('DELETE /api/documents/{id} (to the trash)', () => {
    const DELETERS: Persona[] = ['contributor', 'manager', 'admin'];
    it.each(PERSONAS)('as %s', async (persona) => {
      const id = await aliceDocument();
      const response = await remove(id, persona);
      const may = DELETERS.includes(persona);
      expect(outcome(response)).toEqual(expected(DELETERS, persona, undefined, 204));
      const stored = await row(id);
      expect({ deletedBy: stored.deletedBy, trashed: stored.deletedAt !== null }).toEqual({
        deletedBy: may ? ids[persona] : null,
        trashed: may,
      });
    });

    it('then every route answers 404 for it, and the list leaves it out', async () => {
      const id = await aliceDocument({ title: 'soon trashed' });
      expect((await remove(id, 'contributor')).status).toBe(204);
      expectError(await put(id, 'contributor', { title: 'x' }), 404, 'document_not_found');
      expectError(await history(id, 'contributor'), 404, 'document_not_found');
      expectError(await setStatus(id, 'admin', 'in_review'), 404, 'document_not_found');
      expectError(await remove(id, 'admin'), 404, 'document_not_found');
      const listed = await request(t.url).get('/api/documents?limit=100').set('Authorization', as('admin'));
      expect(listed.body.documents.map((document: { id: string }) => document.id)).not.toContain(id);
      const searched = await request(t.url).get('/api/documents?q=trashed').set('Authorization', as('admin'));
      expect(searched.body.documents).toEqual([]);
    });

    it('honours If-Match, and records history (deleted) and the outbox (document.deleted)', async () => {
      const id = await aliceDocument();
      expectError(await remove(id, 'contributor', '', { 'If-Match': '"v9"' }), 412, 'precondition_failed');
      expect((await row(id)).deletedAt).toBeNull();
      expect((await remove(id, 'contributor', '', { 'If-Match': '"v1"' })).status).toBe(204);
      expect((await events(id)).map((event) => event.type)).toEqual(['document.deleted']);
      expect((await restore(id, 'contributor')).status).toBe(200);
      const actions = (await history(id, 'viewer')).body.history.map((entry: { action: string }) => entry.action);
      expect(actions).toEqual(['restored', 'deleted']);
      expect((await events(id)).map((event) => event.type)).toEqual(['document.deleted', 'document.restored']);
    });

    it('refuses a permanent flag that is not true or false', async () => {
      const id = await aliceDocument();
      expectError(await remove(id, 'admin', '?permanent=yes'), 400, 'validation_failed');
      expect(await row(id)).toBeDefined();
    });
  });

  describe('trash and restore', () => {
    it('lists the deleted documents each caller could delete, last deleted first, with deletedAt and deletedBy', async () => {
      const bobs = await addDocument(t, { projectId: apollo, uploadedBy: ids.otherContributor, title: 'bob trashed' });
      const alices = await aliceDocument({ title: 'alice trashed' });
      expect((await remove(bobs, 'otherContributor')).status).toBe(204);
      expect((await remove(alices, 'manager')).status).toBe(204);
      const listed = async (persona: Persona) => {
        const response = await trash(persona, '?limit=100');
        expect(response.status).toBe(200);
        return response.body.documents.map((document: { id: string }) => document.id) as string[];
      };
      expect(await listed('otherContributor')).toContain(bobs);
      expect(await listed('otherContributor')).not.toContain(alices);
      expect(await listed('contributor')).toContain(alices);
      expect(await listed('contributor')).not.toContain(bobs);
      const manager = await listed('manager');
      expect(manager.indexOf(alices)).toBeLessThan(manager.indexOf(bobs));
      expect(await listed('admin')).toEqual(expect.arrayContaining([alices, bobs]));
      for (const persona of ['viewer', 'editor', 'nonMember'] as const) expect(await listed(persona)).toEqual([]);
      const entry = (await trash('manager', '?limit=100')).body.documents.find(
        (document: { id: string }) => document.id === alices,
      );
      expect(entry).toMatchObject({ id: alices, deletedBy: ids.manager, deletedAt: expect.stringMatching(/Z$/) });
      const page = await trash('manager', '?limit=1&page=2');
      expect(page.body.pagination).toMatchObject({ page: 2, limit: 1, nextCursor: null });
      expect(page.body.documents.map((document: { id: string }) => document.id)).toEqual([manager[1]]);
    });

    it.each(PERSONAS)('restore as %s: whoever could delete it, else 404', async (persona) => {
      const id = await aliceDocument();
      expect((await remove(id, 'admin')).status).toBe(204);
      const restorers: Persona[] = ['contributor', 'manager', 'admin'];
      const response = await restore(id, persona);
      const may = restorers.includes(persona);
      // Whoever may not delete it is not told it is in the trash: 404, never 403.
      expect(outcome(response)).toEqual(
        may
          ? expected(restorers, persona, { status: 'draft', etag: '"v3"' })
          : { status: 404, error: 'document_not_found' },
      );
      expect((await row(id)).deletedAt === null).toBe(may);
      expect((await put(id, 'contributor', { title: 'back' })).status).toBe(may ? 200 : 404);
    });

    it('restore of a document that is not in the trash is 404', async () => {
      expectError(await restore(await aliceDocument(), 'admin'), 404, 'document_not_found');
      expectError(await restore(randomUUID(), 'admin'), 404, 'document_not_found');
    });
  });

  describe('purge', () => {
    const store = () => t.app.get<FileStore, LocalFileStore>(FileStore);
    /** A stored file (old enough for the purge's grace period unless `fresh`) and its hash. */
    const storeFile = (fresh = false): string => {
      const bytes = randomBytes(64);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const path = store().pathOf(sha);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      if (!fresh) utimesSync(path, new Date(Date.now() - 86_400_000), new Date(Date.now() - 86_400_000));
      return sha;
    };
    const addVersion = (documentId: string, version: number, sha: string) =>
      t.dataSource.query(
        `INSERT INTO document_versions (documentId, version, fileName, fileSize, mimeType, sha256, comment, uploadedBy, createdAt)
         VALUES (?, ?, 'f.pdf', 64, 'application/pdf', ?, '', ?, '2026-01-01 00:00:00.000')`,
        [documentId, version, sha, ids.contributor],
      );
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    const stored = (sha: string) => existsSync(store().pathOf(sha));
    const count = async (table: string, id: string) =>
      Number(
        (
          await t.dataSource.query<{ n: number | string }[]>(
            `SELECT COUNT(*) AS n FROM ${table} WHERE documentId = ?`,
            [id],
          )
        )[0].n,
      );

    it('removes documents past TRASH_RETENTION_DAYS with versions and history, and only files nothing references', async () => {
      const [onlyOld, shared, young, fresh] = [storeFile(), storeFile(), storeFile(), storeFile(true)];
      const expired = await aliceDocument({ deletedAt: daysAgo(31), deletedBy: ids.contributor });
      await addVersion(expired, 1, onlyOld);
      await addVersion(expired, 2, shared);
      await t.dataSource.query(
        `INSERT INTO document_history (id, documentId, changedBy, changedAt, rowVersion, changes, action)
         VALUES (?, ?, ?, '2026-01-01 00:00:00.000', 2, '{}', 'deleted')`,
        [randomUUID(), expired, ids.contributor],
      );
      const live = await aliceDocument();
      await addVersion(live, 1, shared);
      const recent = await aliceDocument({ deletedAt: daysAgo(29), deletedBy: ids.contributor });
      await addVersion(recent, 1, young);
      const justWritten = await aliceDocument({ deletedAt: daysAgo(40), deletedBy: ids.contributor });
      await addVersion(justWritten, 1, fresh);
      await t.app.get(StoredFiles).reserve(fresh); // an upload of the same bytes is in flight

      const result = await t.app.get(DocumentTrashService).purgeExpired();
      expect(result.documents).toBeGreaterThanOrEqual(2);
      expect(await row(expired)).toBeUndefined();
      expect(await row(justWritten)).toBeUndefined();
      expect(await count('document_versions', expired)).toBe(0);
      expect(await count('document_history', expired)).toBe(0);
      expect(stored(onlyOld)).toBe(false);
      expect(stored(shared)).toBe(true); // the live document still uses it
      expect(await row(recent)).toBeDefined();
      expect(stored(young)).toBe(true);
      expect(stored(fresh)).toBe(true); // an upload in flight will name it

      // Permanent delete of the last user of `shared` removes it at once.
      expectError(await remove(live, 'manager', '?permanent=true'), 403, 'forbidden');
      expectError(await remove(live, 'contributor', '?permanent=true'), 403, 'forbidden');
      expectError(await remove(live, 'nonMember', '?permanent=true'), 404, 'document_not_found');
      expect(stored(shared)).toBe(true);
      expect((await remove(live, 'admin', '?permanent=true')).status).toBe(204);
      expect(await row(live)).toBeUndefined();
      expect(stored(shared)).toBe(false);
      expectError(await restore(live, 'admin'), 404, 'document_not_found');
    });

    it('permanent delete also empties a document already in the trash', async () => {
      const sha = storeFile();
      const id = await aliceDocument({ deletedAt: daysAgo(1), deletedBy: ids.contributor });
      await addVersion(id, 1, sha);
      expect((await remove(id, 'admin', '?permanent=true')).status).toBe(204);
      expect(await row(id)).toBeUndefined();
      expect(stored(sha)).toBe(false);
    });
  });

  describe('history', () => {
    it('answers every reader with the action of each entry', async () => {
      const id = await aliceDocument();
      expect((await put(id, 'contributor', { title: 'renamed' })).status).toBe(200);
      for (const persona of PERSONAS) {
        const response = await history(id, persona);
        const actions = response.body.history?.map((entry: { action: string }) => entry.action);
        expect({ status: response.status, actions }).toEqual(
          persona === 'nonMember' ? { status: 404, actions: undefined } : { status: 200, actions: ['updated'] },
        );
      }
    });
  });
});
