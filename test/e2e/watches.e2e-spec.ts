import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument, addProject, addUser } from '../support/document-fixtures.js';
import { expectError } from '../support/expect-error.js';
import { apiCaller, recordEvent, undispatchedEvents, waitFor, type Json } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('watching and muting on %s', (kind) => {
  let t: TestApp;
  let call: (username: string, method: string, path: string, body?: unknown) => Promise<Json>;
  let projectId: string;
  let documentId: string;
  const ids: Record<string, string> = {};

  /** erin (editor, not a member) changes the document; answers who got an in-app notification of it. */
  async function hearers(): Promise<string[]> {
    await recordEvent(t, { type: 'document.updated', actorId: t.user('erin').id, projectId, documentId });
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the event dispatched');
    const rows = await t.dataSource.query<{ userId: string }[]>(
      `SELECT userId FROM notifications WHERE notificationType = 'in_app' AND sourceEventId =
         (SELECT id FROM outbox_events WHERE documentId = ? ORDER BY createdAt DESC, id DESC LIMIT 1)`,
      [documentId],
    );
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return rows.map((row) => names[row.userId] ?? row.userId).toSorted();
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    projectId = await addProject(t, 'Watched project');
    for (const name of ['owner', 'docwatcher', 'projwatcher', 'muter', 'leaver', 'bystander']) {
      ids[name] = await addUser(t, `w_${name}`, { [projectId]: 'contributor' });
    }
    ids.outsider = await addUser(t, 'w_outsider');
    documentId = await addDocument(t, { projectId, uploadedBy: ids.owner, title: 'Watched doc' });
    const tokens: Record<string, string> = {};
    for (const name of Object.keys(ids)) tokens[name] = await t.login(`w_${name}`);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('only readers may watch or mute (404 otherwise); every change is idempotent (204)', async () => {
    for (const path of [`/api/documents/${documentId}/watch`, `/api/documents/${documentId}/mute`]) {
      expectError(await call('outsider', 'PUT', path, {}), 404, 'document_not_found');
    }
    expectError(await call('outsider', 'PUT', `/api/projects/${projectId}/watch`, {}), 404, 'project_not_found');
    for (let round = 0; round < 2; round++) {
      expect((await call('docwatcher', 'PUT', `/api/documents/${documentId}/watch`, {})).status).toBe(204);
      expect((await call('projwatcher', 'PUT', `/api/projects/${projectId}/watch`, {})).status).toBe(204);
      expect((await call('muter', 'PUT', `/api/projects/${projectId}/watch`, {})).status).toBe(204);
      expect((await call('muter', 'PUT', `/api/documents/${documentId}/mute`, {})).status).toBe(204);
      expect((await call('leaver', 'PUT', `/api/documents/${documentId}/watch`, {})).status).toBe(204);
    }
  });

  it('a PUT without a body (and without content-type) watches and mutes too', async () => {
    for (const path of [
      `/api/documents/${documentId}/watch`,
      `/api/documents/${documentId}/mute`,
      `/api/projects/${projectId}/watch`,
    ]) {
      expect((await call('bystander', 'PUT', path)).status).toBe(204);
      expect((await call('bystander', 'DELETE', path)).status).toBe(204);
    }
  });

  it('watchers hear as participants do; a mute wins; who can no longer read hears nothing', async () => {
    await t.dataSource.query('DELETE FROM project_members WHERE projectId = ? AND userId = ?', [projectId, ids.leaver]);
    // owner: participant; bystander: a member who neither takes part nor watches.
    expect(await hearers()).toEqual(['docwatcher', 'owner', 'projwatcher']);
  });

  it("reaches watchers of a change made through the API by the document's only participant", async () => {
    const changed = await call('owner', 'PUT', `/api/documents/${documentId}`, { title: 'Watched doc, changed' });
    expect(changed.status).toBe(200);
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the event dispatched');
    const rows = await t.dataSource.query<{ userId: string }[]>(
      `SELECT userId FROM notifications WHERE notificationType = 'in_app' AND sourceEventId =
         (SELECT id FROM outbox_events WHERE documentId = ? AND type = 'document.updated' ORDER BY createdAt DESC LIMIT 1)`,
      [documentId],
    );
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    expect(rows.map((row) => names[row.userId]).toSorted()).toEqual(['docwatcher', 'projwatcher']);
    expect((await call('owner', 'PUT', `/api/documents/${documentId}`, { title: 'Watched doc' })).status).toBe(200);
  });

  it('GET /api/auth/me/watches lists watches and mutes', async () => {
    const mine = await call('muter', 'GET', '/api/auth/me/watches');
    expect(mine.status).toBe(200);
    expect(mine.body.documents).toEqual([
      { documentId, title: 'Watched doc', state: 'muted', since: expect.any(String) },
    ]);
    expect(mine.body.projects).toEqual([{ projectId, name: 'Watched project', since: expect.any(String) }]);
    expect((await call('bystander', 'GET', '/api/auth/me/watches')).body).toEqual({ documents: [], projects: [] });
  });

  it('unwatching and unmuting change who hears of the next event', async () => {
    expect((await call('docwatcher', 'DELETE', `/api/documents/${documentId}/watch`)).status).toBe(204);
    expect((await call('projwatcher', 'DELETE', `/api/projects/${projectId}/watch`)).status).toBe(204);
    expect((await call('muter', 'DELETE', `/api/documents/${documentId}/mute`)).status).toBe(204);
    // The participant mutes: a participant stops hearing of one document too.
    expect((await call('owner', 'PUT', `/api/documents/${documentId}/mute`, {})).status).toBe(204);
    // Unwatch does not unmute, and again is still 204.
    expect((await call('owner', 'DELETE', `/api/documents/${documentId}/watch`)).status).toBe(204);
    expect(await hearers()).toEqual(['muter']);
  });

  it('a project watcher hears of documents created in the project like every member', async () => {
    await recordEvent(t, { type: 'document.created', actorId: ids.owner, projectId, documentId });
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the event dispatched');
    const rows = await t.dataSource.query<{ userId: string }[]>(
      `SELECT userId FROM notifications WHERE notificationType = 'in_app' AND event = 'document.created' AND documentId = ?`,
      [documentId],
    );
    // Every member but the actor (owner) and the one who left; the outsider is no member.
    const expected = ['docwatcher', 'projwatcher', 'muter', 'bystander'].map((name) => ids[name]).toSorted();
    expect(rows.map((row) => row.userId).toSorted()).toEqual(expected);
  });
});
