import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SavedSearchMatcher } from '../../src/saved-searches/saved-search-matcher.js';
import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout.js';
import { NotificationDispatcher } from '../../src/notifications/delivery/notification-dispatcher.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, notificationsOfEvents, recordEvent, undispatchedEvents, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('notification inbox: the dispatcher on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  let call: ReturnType<typeof apiCaller>;

  beforeAll(async () => {
    t = await createTestApp(kind);
    call = apiCaller(t, tokens);
    for (const username of ['alice', 'bob', 'erin', 'admin']) tokens[username] = await t.login(username);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('notifies every project member but the actor of document.created, naming the document and the actor', async () => {
    const project = t.seed.projects[0];
    const document = t.seed.documents.find((candidate) => candidate.uploadedBy === t.user('alice').id)!;
    await recordEvent(t, {
      type: 'document.created',
      actorId: t.user('alice').id,
      projectId: project.id,
      documentId: document.id,
    });
    const expected = project.members.map((member) => member.userId).filter((id) => id !== t.user('alice').id);
    const rows = await waitFor(async () => {
      const found = await notificationsOfEvents(t.dataSource, 'document.created');
      return found.length === expected.length && found;
    }, 'document.created notifications');
    expect(rows.map((row) => row.userId).toSorted()).toEqual(expected.toSorted());
    const [{ title }] = await t.dataSource.query<{ title: string }[]>('SELECT title FROM documents WHERE id = ?', [
      document.id,
    ]);
    for (const row of rows) {
      // No SMTP_URL: in-app only, and it is in the inbox (sent).
      expect(row).toMatchObject({ notificationType: 'in_app', status: 'sent', documentId: document.id });
      expect(row.subject).toContain(title);
      expect(row.message).toContain('Alice Martin');
      expect(row.message).toContain(project.name);
    }
    const bob = await call('bob', 'GET', '/api/notifications?limit=100');
    const shown = bob.body.notifications.find((item: { event: string }) => item.event === 'document.created');
    expect(shown).toMatchObject({
      documentId: document.id,
      notificationType: 'in_app',
      status: 'sent',
      readAt: null,
    });
  });

  it('notifies the participants of other document events, never the actor, and the added member only', async () => {
    const bobs = t.seed.documents.find((candidate) => candidate.uploadedBy === t.user('bob').id)!;
    // erin changes bob's document through the API: bob (the uploader) hears of it, erin does not.
    const update = await call('erin', 'PUT', `/api/documents/${bobs.id}`, { title: 'Renamed by Erin' });
    expect(update.status).toBe(200);
    const rows = await waitFor(async () => {
      const found = await notificationsOfEvents(t.dataSource, 'document.updated');
      return found.length > 0 && found;
    }, 'document.updated notifications');
    expect(rows.map((row) => row.userId)).toEqual([t.user('bob').id]);
    expect(rows[0].subject).toContain('Renamed by Erin');
    expect(rows[0].message).toContain('Erin Editor');

    await recordEvent(t, {
      type: 'project.member_added',
      actorId: t.user('admin').id,
      projectId: t.seed.projects[1].id,
      subjectUserId: t.user('erin').id,
      payload: { role: 'viewer' },
    });
    const added = await waitFor(async () => {
      const found = await notificationsOfEvents(t.dataSource, 'project.member_added');
      return found.length > 0 && found;
    }, 'project.member_added notifications');
    expect(added.map((row) => row.userId)).toEqual([t.user('erin').id]);
    expect(added[0].message).toContain('as viewer');
  });

  it('marks an event nobody is to hear of dispatched, with no notification (the actor is its only participant)', async () => {
    const alices = t.seed.documents.filter((candidate) => candidate.uploadedBy === t.user('alice').id).at(-1)!;
    const before = await notificationsOfEvents(t.dataSource, 'document.version_added');
    await recordEvent(t, { type: 'document.version_added', actorId: t.user('alice').id, documentId: alices.id });
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'dispatch');
    expect(await notificationsOfEvents(t.dataSource, 'document.version_added')).toEqual(before);
    const [event] = await t.dataSource.query<{ dispatchedAt: unknown }[]>(
      "SELECT dispatchedAt FROM outbox_events WHERE type = 'document.version_added' AND documentId = ?",
      [alices.id],
    );
    expect(event.dispatchedAt).not.toBeNull();
  });

  it("makes no notification of an update by the document's only participant", async () => {
    const alices = t.seed.documents.filter((candidate) => candidate.uploadedBy === t.user('alice').id).at(-1)!;
    const before = await notificationsOfEvents(t.dataSource, 'document.updated');
    const update = await call('alice', 'PUT', `/api/documents/${alices.id}`, { title: 'Only Alice takes part' });
    expect(update.status).toBe(200);
    // Dispatched by the dispatcher, which finds nobody to tell (watchers would be told: watches e2e).
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'dispatch');
    expect(await notificationsOfEvents(t.dataSource, 'document.updated')).toEqual(before);
  });

  it('makes no notification a recipient turned off', async () => {
    const put = await call('bob', 'PUT', '/api/notifications/preferences', {
      preferences: { 'document.restored': { in_app: false, email: false } },
    });
    expect(put.status).toBe(200);
    const bobs = t.seed.documents.find((candidate) => candidate.uploadedBy === t.user('bob').id)!;
    const alices = t.seed.documents.find((candidate) => candidate.uploadedBy === t.user('alice').id)!;
    await recordEvent(t, { type: 'document.restored', actorId: t.user('admin').id, documentId: bobs.id });
    await recordEvent(t, { type: 'document.restored', actorId: t.user('admin').id, documentId: alices.id });
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'dispatch');
    const rows = await notificationsOfEvents(t.dataSource, 'document.restored');
    // bob turned document.restored off; erin (who changed bob's document) and alice still hear of it.
    expect(rows.map((row) => row.userId).toSorted()).toEqual([t.user('alice').id, t.user('erin').id].toSorted());
  });

  it('never makes a second notification for one event, recipient and channel', async () => {
    const before = await t.dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM notifications');
    // As if every event had been claimed again (a crash after commit, an operator's replay).
    await t.dataSource.query('UPDATE outbox_events SET dispatchedAt = NULL');
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the second dispatch');
    const after = await t.dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM notifications');
    expect(Number(after[0].n)).toBe(Number(before[0].n));
  });

  it('commits each event whole or not at all: a failure mid-batch loses nothing and duplicates nothing', async () => {
    const erin = t.user('erin').id;
    // A fault on one recipient's insert, the second event of the batch.
    await t.dataSource.query(
      kind === 'mysql'
        ? `CREATE TRIGGER test_fail_erin BEFORE INSERT ON notifications FOR EACH ROW
         BEGIN IF NEW.userId = '${erin}' AND NEW.event = 'document.deleted' THEN SIGNAL SQLSTATE '45000'; END IF; END`
        : `CREATE TRIGGER test_fail_erin BEFORE INSERT ON notifications FOR EACH ROW
         WHEN NEW.userId = '${erin}' AND NEW.event = 'document.deleted' BEGIN SELECT RAISE(ABORT, 'fault'); END`,
    );
    const project = t.seed.projects[0];
    const document = t.seed.documents[0];
    const dispatcher = t.app.get(NotificationDispatcher);
    // This instance's own loop is stopped so that the batch below is the one that fails; so are the
    // other readers of the outbox, whose updates of an event's row make the claim skip it (SKIP LOCKED).
    const others = [t.app.get(SavedSearchMatcher), t.app.get(WebhookFanout)];
    await dispatcher.onModuleDestroy();
    for (const other of others) await other.onModuleDestroy();
    try {
      // Events are dispatched oldest first; two recorded within one millisecond would tie.
      const first = new Date();
      // Nobody is to hear of this one (its only recipient is its actor): it is settled even though a later event fails.
      await recordEvent(
        t,
        { type: 'project.member_added', actorId: erin, projectId: project.id, subjectUserId: erin },
        new Date(first.getTime() - 1),
      );
      await recordEvent(
        t,
        { type: 'document.created', actorId: t.user('admin').id, projectId: project.id, documentId: document.id },
        first,
      );
      // erin changed bob's document in the test above: she is a participant, and her insert fails.
      const bobs = t.seed.documents.find((d) => d.uploadedBy === t.user('bob').id)!.id;
      await recordEvent(
        t,
        { type: 'document.deleted', actorId: t.user('admin').id, documentId: bobs },
        new Date(first.getTime() + 1),
      );
      await expect(dispatcher.dispatchBatch()).rejects.toThrow(/fault|user-defined exception/i);
      // The first events of the batch committed; the failed one left neither a claim nor a notification.
      // (Only this batch's events are looked at: another part of the app may record one meanwhile.)
      const pending = await t.dataSource.query<
        { type: string; documentId: string | null; subjectUserId: string | null }[]
      >('SELECT type, documentId, subjectUserId FROM outbox_events WHERE dispatchedAt IS NULL');
      const ours = pending.filter(
        (event) =>
          (event.type === 'project.member_added' && event.subjectUserId === erin) ||
          (event.type === 'document.created' && event.documentId === document.id) ||
          (event.type === 'document.deleted' && event.documentId === bobs),
      );
      expect(ours.map((event) => event.type)).toEqual(['document.deleted']);
      expect(await notificationsOfEvents(t.dataSource, 'document.deleted')).toEqual([]);
      const created = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM notifications n JOIN outbox_events e ON e.id = n.sourceEventId WHERE e.dispatchedAt IS NULL',
      );
      expect(Number(created[0].n)).toBe(0);
    } finally {
      await t.dataSource.query('DROP TRIGGER test_fail_erin');
      dispatcher.onApplicationBootstrap();
      for (const other of others) other.onApplicationBootstrap();
    }
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the retried batch');
    const duplicates = await t.dataSource.query<{ n: number | string }[]>(
      `SELECT COUNT(*) AS n FROM (SELECT sourceEventId, userId, notificationType FROM notifications
     WHERE sourceEventId IS NOT NULL GROUP BY sourceEventId, userId, notificationType HAVING COUNT(*) > 1) d`,
    );
    expect(Number(duplicates[0].n)).toBe(0);
    const deleted = await notificationsOfEvents(t.dataSource, 'document.deleted');
    expect(deleted.map((row) => row.userId)).toContain(erin);
  });
});
