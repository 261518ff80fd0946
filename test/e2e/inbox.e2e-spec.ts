import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationDispatcher } from '../../src/notifications/delivery/notification-dispatcher.js';
import { isRetryableConflict } from '../../src/database/database-errors.js';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { notificationsOfEvents, recordEvent, undispatchedEvents, waitFor } from '../support/inbox.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

interface Json {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(databasesUnderTest())('notification inbox on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};

  async function call(username: string, method: string, path: string, body?: unknown): Promise<Json> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[username]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** The counts the API answers equal COUNT(*) over the rows, for every user. */
  async function expectExactCounts(): Promise<void> {
    for (const username of ['alice', 'bob', 'erin', 'admin']) {
      const userId = t.user(username).id;
      const rows = await t.dataSource.query<{ notificationType: string; n: number | string }[]>(
        'SELECT notificationType, COUNT(*) AS n FROM notifications WHERE userId = ? AND readAt IS NULL GROUP BY notificationType',
        [userId],
      );
      const byType = { email: 0, sms: 0, push: 0, in_app: 0 } as Record<string, number>;
      for (const row of rows) byType[row.notificationType] = Number(row.n);
      const unread = Object.values(byType).reduce((sum, value) => sum + value, 0);
      expect((await call(username, 'GET', '/api/notifications/unread-count')).body).toEqual({ unread, byType });
      const [total] = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM notifications WHERE userId = ?',
        [userId],
      );
      const list = await call(username, 'GET', '/api/notifications?limit=1');
      expect(list.body.pagination.total).toBe(Number(total.n));
    }
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    for (const username of ['alice', 'bob', 'erin', 'admin']) tokens[username] = await t.login(username);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('the dispatcher', () => {
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
      // This instance's own loop is stopped so that the batch below is the one that fails.
      await dispatcher.onModuleDestroy();
      try {
        // Events are dispatched oldest first; two recorded within one millisecond would tie.
        const first = new Date();
        await recordEvent(
          t,
          { type: 'document.created', actorId: t.user('admin').id, projectId: project.id, documentId: document.id },
          first,
        );
        // erin changed bob's document in the test above: she is a participant, and her insert fails.
        await recordEvent(
          t,
          {
            type: 'document.deleted',
            actorId: t.user('admin').id,
            documentId: t.seed.documents.find((d) => d.uploadedBy === t.user('bob').id)!.id,
          },
          new Date(first.getTime() + 1),
        );
        await expect(dispatcher.dispatchBatch()).rejects.toThrow(/fault|user-defined exception/i);
        // The first event of the batch committed; the failed one left neither a claim nor a notification.
        expect(await undispatchedEvents(t.dataSource)).toBe(1);
        expect(await notificationsOfEvents(t.dataSource, 'document.deleted')).toEqual([]);
        const created = await t.dataSource.query<{ n: number | string }[]>(
          'SELECT COUNT(*) AS n FROM notifications n JOIN outbox_events e ON e.id = n.sourceEventId WHERE e.dispatchedAt IS NULL',
        );
        expect(Number(created[0].n)).toBe(0);
      } finally {
        await t.dataSource.query('DROP TRIGGER test_fail_erin');
        dispatcher.onApplicationBootstrap();
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

  describe('one notification', () => {
    it('answers its own notification, 404 for another user’s or an unknown id, 400 for a malformed id', async () => {
      const [mine] = (await call('alice', 'GET', '/api/notifications?limit=1')).body.notifications;
      const own = await call('alice', 'GET', `/api/notifications/${mine.id}`);
      expect(own).toEqual({ status: 200, body: { notification: mine } });
      for (const [username, id] of [
        ['bob', mine.id],
        ['alice', randomUUID()],
      ]) {
        for (const [method, body] of [
          ['GET', undefined],
          ['PATCH', { read: true }],
          ['DELETE', undefined],
        ] as const) {
          const answer = await call(username, method, `/api/notifications/${id}`, body);
          expect(answer).toMatchObject({ status: 404, body: { error: 'notification_not_found' } });
        }
      }
      expect((await call('alice', 'GET', '/api/notifications/not-a-uuid')).status).toBe(400);
      expect((await call('alice', 'PATCH', `/api/notifications/${mine.id}`, { read: 'yes' })).body.error).toBe(
        'validation_failed',
      );
      expect((await call('alice', 'PATCH', `/api/notifications/${mine.id}`, {})).body.error).toBe('validation_failed');
      expect((await call('alice', 'GET', `/api/notifications/${mine.id}`)).body.notification).toEqual(mine);
    });

    it('marks read (readAt kept) and unread (status back to its delivery status), idempotently', async () => {
      const list = await call('alice', 'GET', '/api/notifications?unreadOnly=true&status=pending&limit=1');
      const [pending] = list.body.notifications;
      const read = await call('alice', 'PATCH', `/api/notifications/${pending.id}`, { read: true });
      expect(read.status).toBe(200);
      expect(read.body.notification).toMatchObject({ id: pending.id, status: 'read' });
      const readAt = read.body.notification.readAt;
      expect(typeof readAt).toBe('string');
      const again = await call('alice', 'PATCH', `/api/notifications/${pending.id}`, { read: true });
      expect(again.body.notification.readAt).toBe(readAt);
      const unread = await call('alice', 'PATCH', `/api/notifications/${pending.id}`, { read: false });
      expect(unread.body.notification).toMatchObject({ status: 'pending', readAt: null });
      const unreadAgain = await call('alice', 'PATCH', `/api/notifications/${pending.id}`, { read: false });
      expect(unreadAgain.body.notification).toEqual(unread.body.notification);
      await expectExactCounts();
    });

    it('deletes: 204, then gone from the list and the counts', async () => {
      const [first] = (await call('bob', 'GET', '/api/notifications?limit=1')).body.notifications;
      const removed = await call('bob', 'DELETE', `/api/notifications/${first.id}`);
      expect(removed.status).toBe(204);
      expect((await call('bob', 'GET', `/api/notifications/${first.id}`)).status).toBe(404);
      expect((await call('bob', 'DELETE', `/api/notifications/${first.id}`)).status).toBe(404);
      const ids = (await call('bob', 'GET', '/api/notifications?limit=100')).body.notifications.map(
        (item: { id: string }) => item.id,
      );
      expect(ids).not.toContain(first.id);
      await expectExactCounts();
    });
  });

  describe('read-all and unread-count', () => {
    it('marks only what the filters and `before` select, and only the caller’s', async () => {
      const bobBefore = (await call('bob', 'GET', '/api/notifications/unread-count')).body;
      const counts = (await call('alice', 'GET', '/api/notifications/unread-count')).body;
      const smsOnly = await call('alice', 'POST', '/api/notifications/read-all', {
        type: 'sms',
        before: '2000-01-01T00:00:00Z',
      });
      expect(smsOnly.body).toEqual({ updated: 0 });
      const sms = await call('alice', 'POST', '/api/notifications/read-all', { type: 'sms' });
      expect(sms).toEqual({ status: 200, body: { updated: counts.byType.sms } });
      const after = (await call('alice', 'GET', '/api/notifications/unread-count')).body;
      expect(after).toEqual({ unread: counts.unread - counts.byType.sms, byType: { ...counts.byType, sms: 0 } });
      expect((await call('bob', 'GET', '/api/notifications/unread-count')).body).toEqual(bobBefore);
      for (const body of [{ type: 'fax' }, { before: 'yesterday' }, { status: 'gone' }, { extra: 1 }]) {
        const refused = await call('alice', 'POST', '/api/notifications/read-all', body);
        expect(refused).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
      }
      expect((await call('alice', 'GET', '/api/notifications/unread-count')).body).toEqual(after);
      const all = await call('alice', 'POST', '/api/notifications/read-all');
      expect(all.body).toEqual({ updated: after.unread });
      expect((await call('alice', 'GET', '/api/notifications/unread-count')).body.unread).toBe(0);
      await expectExactCounts();
    });

    it('keeps every count exact after random sequences of inbox operations', async () => {
      let seed = 12;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let step = 0; step < 40; step++) {
        const username = ['alice', 'bob', 'erin', 'admin'][random(4)];
        const list = (await call(username, 'GET', '/api/notifications?limit=50')).body.notifications as {
          id: string;
        }[];
        const target = list[random(Math.max(list.length, 1))];
        const operation = random(5);
        if (operation === 0 && target) await call(username, 'PATCH', `/api/notifications/${target.id}`, { read: true });
        if (operation === 1 && target)
          await call(username, 'PATCH', `/api/notifications/${target.id}`, { read: false });
        if (operation === 2 && target) await call(username, 'DELETE', `/api/notifications/${target.id}`);
        if (operation === 3) {
          await call(username, 'POST', '/api/notifications/read-all', {
            type: ['email', 'sms', 'push', 'in_app'][random(4)],
          });
        }
        if (operation === 4 && target) {
          // Mark a few unread again so read-all keeps having work.
          for (const item of list.slice(0, 5))
            await call(username, 'PATCH', `/api/notifications/${item.id}`, { read: false });
        }
        if (step % 10 === 9) await expectExactCounts();
      }
      await expectExactCounts();
    });
  });

  describe('read-all over many rows (in chunks)', () => {
    const stamp = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');
    async function insertUnread(userId: string, count: number, createdAt: Date): Promise<void> {
      const types = ['email', 'sms', 'push', 'in_app'];
      const statuses = ['sent', 'pending', 'failed', 'read'];
      for (let start = 0; start < count; start += 500) {
        const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => [
          randomUUID(),
          userId,
          'bulk',
          'bulk read-all',
          types[(start + i) % 4],
          statuses[(start + i) % 3 === 0 ? (start + i) % 4 : 0],
          stamp(new Date(createdAt.getTime() + ((start + i) % 7) * 1000)),
        ]);
        // A concurrent writer, as the dispatcher is: MariaDB may pick its batch as a deadlock's
        // victim (its trigger's counts rows against the read-all's counts upsert), and the
        // dispatcher then writes the batch again at its next poll; so does this one.
        for (let attempt = 1; ; attempt++) {
          try {
            await t.dataSource.query(
              `INSERT INTO notifications (id, userId, subject, message, notificationType, status, createdAt)
               VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
              rows.flat(),
            );
            break;
          } catch (error) {
            if (!isRetryableConflict(error) || attempt === 5) throw error;
          }
        }
      }
    }

    it('marks more rows than a chunk, only the caller’s, with exact counts, while rows keep arriving', async () => {
      const erin = t.user('erin').id;
      const bobBefore = (await call('bob', 'GET', '/api/notifications/unread-count')).body;
      await insertUnread(erin, 12_345, new Date(Date.now() - 3_600_000));
      const expected = (await call('erin', 'GET', '/api/notifications/unread-count')).body.unread;

      // Rows inserted during the read-all: older ones may or may not be marked, newer ones stay unread.
      const readAll = call('erin', 'POST', '/api/notifications/read-all');
      const arriving = (async () => {
        for (let round = 0; round < 10; round++) {
          await insertUnread(erin, 20, new Date(Date.now() - 60_000));
          await insertUnread(erin, 20, new Date(Date.now() + 3_600_000));
        }
      })();
      const [answer] = await Promise.all([readAll, arriving]);
      expect(answer.status).toBe(200);
      expect(answer.body.updated).toBeGreaterThanOrEqual(expected);
      expect(answer.body.complete).toBeUndefined();
      const [future] = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM notifications WHERE userId = ? AND readAt IS NULL AND createdAt > ?',
        [erin, stamp(new Date(Date.now() + 60_000))],
      );
      expect(Number(future.n)).toBe(200);
      expect((await call('bob', 'GET', '/api/notifications/unread-count')).body).toEqual(bobBefore);
      await expectExactCounts();

      // Marked unread again and read-all by type: the grouped count upkeep per (status, type).
      await t.dataSource.query(
        "UPDATE notifications SET readAt = NULL, status = 'sent' WHERE userId = ? AND subject = 'bulk' AND notificationType = 'push'",
        [erin],
      );
      await expectExactCounts();
      const push = (await call('erin', 'GET', '/api/notifications/unread-count')).body.byType.push;
      const pushOnly = await call('erin', 'POST', '/api/notifications/read-all', { type: 'push' });
      expect(pushOnly.body.updated).toBeLessThanOrEqual(push);
      expect((await call('erin', 'GET', '/api/notifications/unread-count')).body.byType.push).toBe(
        push - pushOnly.body.updated,
      );
      await expectExactCounts();
      await t.dataSource.query("DELETE FROM notifications WHERE userId = ? AND subject = 'bulk'", [erin]);
      await expectExactCounts();
    });
  });

  it('answers unread-count only for a live session: 401 once the token is revoked or its user deactivated', async () => {
    const users = t.app.get(UsersService);
    const user = await users.create({
      username: 'ulla',
      email: 'ulla@example.org',
      firstName: 'Ulla',
      lastName: 'Count',
      password: TEST_PASSWORD,
      roleNames: ['user'],
    });
    const unread = (token: string) =>
      fetch(`${t.url}/api/notifications/unread-count`, { headers: { authorization: `Bearer ${token}` } });
    const first = await t.login('ulla');
    const fresh = await unread(first);
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toEqual({ unread: 0, byType: { email: 0, sms: 0, push: 0, in_app: 0 } });
    await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${first}` } });
    expect((await unread(first)).status).toBe(401);
    const second = await t.login('ulla');
    expect((await unread(second)).status).toBe(200);
    await users.update(user.id, { isActive: false });
    const refused = await unread(second);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('unauthorized');
  });

  it('refuses every inbox route without a token', async () => {
    for (const [method, path] of [
      ['GET', `/api/notifications/${randomUUID()}`],
      ['GET', '/api/notifications/unread-count'],
      ['POST', '/api/notifications/read-all'],
      ['GET', '/api/notifications/preferences'],
      ['POST', '/api/notifications/stream-tickets'],
      ['GET', '/api/notifications/stream'],
    ]) {
      const response = await fetch(`${t.url}${path}`, { method });
      expect(response.status).toBe(401);
    }
  });
});
