import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryableConflict } from '../../src/database/database-errors.js';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller } from '../support/inbox.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('notification inbox: one notification, read-all, unread-count on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};

  let call: ReturnType<typeof apiCaller>;

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
    call = apiCaller(t, tokens);
    for (const username of ['alice', 'bob', 'erin', 'admin']) tokens[username] = await t.login(username);
  });

  afterAll(async () => {
    await t?.close();
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
      // A slow machine may stop at the time budget (`complete: false`); calling again does the rest.
      const readAll = (async () => {
        let updated = 0;
        for (;;) {
          const { status, body } = await call('erin', 'POST', '/api/notifications/read-all');
          if (status !== 200) return { status, body };
          updated += body.updated;
          if (body.complete === undefined) return { status, body: { ...body, updated } };
          expect(body.complete).toBe(false);
        }
      })();
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
