import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { listHelpers, matches, sqlTime, type Filters, type Username } from '../support/notification-list.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('GET /api/notifications on %s: totals and deep pages after writes', (kind) => {
  let t: TestApp;
  let tokens: Record<Username, string>;
  const { list, stored, countInDatabase, expectTotalsMatchDatabase } = listHelpers(
    () => t,
    () => tokens,
  );

  beforeAll(async () => {
    t = await createTestApp(kind);
    tokens = { alice: await t.login('alice'), bob: await t.login('bob'), admin: await t.login('admin') };
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('trigger-maintained totals after direct SQL writes', () => {
    const insert = async (row: {
      id?: string;
      userId: string;
      status: string;
      notificationType: string;
      readAt: Date | null;
      createdAt: Date;
    }) => {
      await t.dataSource.query(
        'INSERT INTO notifications (id, userId, subject, message, notificationType, status, readAt, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [
          row.id ?? randomUUID(),
          row.userId,
          `Direct ${row.status} ${row.notificationType}`,
          'Inserted with SQL by the test.',
          row.notificationType,
          row.status,
          row.readAt ? sqlTime(row.readAt) : null,
          sqlTime(row.createdAt),
        ],
      );
    };

    it('stay equal to COUNT(*) for every filter after INSERTs', async () => {
      const alice = t.user('alice').id;
      const bob = t.user('bob').id;
      const now = Date.now();
      let index = 0;
      for (const status of NOTIFICATION_STATUSES) {
        for (const notificationType of ['email', 'in_app'] as const) {
          index++;
          await insert({
            userId: alice,
            status,
            notificationType,
            readAt: status === 'read' ? new Date(now + index * 1000 + 500) : null,
            createdAt: new Date(now + index * 1000),
          });
        }
      }
      // Unusual but possible data: read status without readAt, unread status with readAt.
      await insert({
        userId: alice,
        status: 'read',
        notificationType: 'sms',
        readAt: null,
        createdAt: new Date(now - 1),
      });
      await insert({
        userId: bob,
        status: 'pending',
        notificationType: 'push',
        readAt: new Date(now),
        createdAt: new Date(now),
      });
      await insert({ userId: bob, status: 'sent', notificationType: 'sms', readAt: null, createdAt: new Date(now) });

      expect((await list(tokens.alice)).body.pagination.total).toBe(73);
      // The newest inserted one comes first.
      expect((await list(tokens.alice, { limit: 1 })).body.notifications[0].createdAt).toBe(
        new Date(now + 8000).toISOString(),
      );
      await expectTotalsMatchDatabase('alice');
      await expectTotalsMatchDatabase('bob');
      await expectTotalsMatchDatabase('admin');
    });

    it('stay equal to COUNT(*) after UPDATEs of status, readAt, notificationType and userId', async () => {
      const alice = t.user('alice').id;
      const bob = t.user('bob').id;
      const rows = await stored('alice');
      const pick = (predicate: (row: Notification) => boolean, count: number) =>
        rows
          .filter(predicate)
          .slice(0, count)
          .map((row) => row.id);
      const placeholders = (ids: string[]) => ids.map(() => '?').join(', ');

      // pending -> read with readAt (unread -> read)
      const markRead = pick((row) => row.status === 'pending', 3);
      await t.dataSource.query(
        `UPDATE notifications SET status = 'read', readAt = ? WHERE id IN (${placeholders(markRead)})`,
        [sqlTime(new Date()), ...markRead],
      );
      await expectTotalsMatchDatabase('alice');

      // read -> readAt cleared, status kept (read -> unread with the same status)
      const clearReadAt = pick((row) => row.status === 'read' && row.readAt !== null && !markRead.includes(row.id), 2);
      await t.dataSource.query(
        `UPDATE notifications SET readAt = NULL WHERE id IN (${placeholders(clearReadAt)})`,
        clearReadAt,
      );
      await expectTotalsMatchDatabase('alice');

      // type change only
      const retype = pick((row) => row.notificationType === 'email', 4);
      await t.dataSource.query(
        `UPDATE notifications SET notificationType = 'push' WHERE id IN (${placeholders(retype)})`,
        retype,
      );
      await expectTotalsMatchDatabase('alice');

      // status and type and readAt at once, on many rows
      await t.dataSource.query(
        `UPDATE notifications SET status = 'failed', notificationType = 'sms', readAt = NULL WHERE userId = ? AND status = 'sent'`,
        [alice],
      );
      await expectTotalsMatchDatabase('alice');

      // an update that changes nothing relevant
      await t.dataSource.query(`UPDATE notifications SET subject = 'Renamed' WHERE userId = ?`, [alice]);
      await expectTotalsMatchDatabase('alice');

      // moved to another user: it leaves alice's totals and enters bob's
      const moved = pick((row) => row.status === 'failed', 2);
      await t.dataSource.query(`UPDATE notifications SET userId = ? WHERE id IN (${placeholders(moved)})`, [
        bob,
        ...moved,
      ]);
      await expectTotalsMatchDatabase('alice');
      await expectTotalsMatchDatabase('bob');
      const bobList = await list(tokens.bob, { limit: 100 });
      expect(bobList.body.notifications.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(moved));
      const aliceIds = (await list(tokens.alice, { limit: 100 })).body.notifications.map((n: { id: string }) => n.id);
      for (const id of moved) expect(aliceIds).not.toContain(id);
    });

    it('stay equal to COUNT(*) after DELETEs, down to zero', async () => {
      const alice = t.user('alice').id;
      const rows = await stored('alice');
      await t.dataSource.query('DELETE FROM notifications WHERE id = ?', [rows[0].id]);
      await expectTotalsMatchDatabase('alice');

      await t.dataSource.query(`DELETE FROM notifications WHERE userId = ? AND status = 'failed'`, [alice]);
      await expectTotalsMatchDatabase('alice');

      await t.dataSource.query('DELETE FROM notifications WHERE userId = ? AND readAt IS NULL', [alice]);
      await expectTotalsMatchDatabase('alice');
      await expectTotalsMatchDatabase('bob');

      await t.dataSource.query('DELETE FROM notifications WHERE userId = ?', [alice]);
      await expectTotalsMatchDatabase('alice');
      expect((await list(tokens.alice)).body).toEqual({
        notifications: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null },
      });

      // And they count again from zero.
      await insert({
        userId: alice,
        status: 'read',
        notificationType: 'email',
        readAt: new Date(),
        createdAt: new Date(),
      });
      await expectTotalsMatchDatabase('alice');
      expect((await list(tokens.alice)).body.pagination.total).toBe(1);
    });
  });

  describe('deep pages are exactly what OFFSET gives, and stay exact after writes', () => {
    const DEEP_ROWS = 2_400;
    const ids = (response: Response) => response.body.notifications.map((n: { id: string }) => n.id);

    /** The page as OFFSET over the stored rows would give it, computed here from the database. */
    const expectedPage = async (filters: Filters, page: number, limit: number) => {
      const rows = (await stored('bob')).filter((row) => matches(row, filters));
      return rows.slice((page - 1) * limit, page * limit).map((row) => row.id);
    };

    const expectDeepPage = async (filters: Filters, page: number, limit: number) => {
      const response = await list(tokens.bob, { ...filters, page, limit });
      expect(response.status).toBe(200);
      expect({ filters, page, limit, ids: ids(response) }).toEqual({
        filters,
        page,
        limit,
        ids: await expectedPage(filters, page, limit),
      });
      expect(response.body.pagination.total).toBe(await countInDatabase('bob', filters));
      return response;
    };

    beforeAll(async () => {
      const bob = t.user('bob').id;
      const start = Date.UTC(2026, 0, 1);
      const rows: unknown[][] = [];
      for (let index = 0; index < DEEP_ROWS; index++) {
        const status = NOTIFICATION_STATUSES[index % 4];
        // Pairs share a timestamp, so the id tie-break decides their order.
        const createdAt = new Date(start + Math.floor(index / 2) * 1000);
        rows.push([
          randomUUID(),
          bob,
          `Deep ${index}`,
          'Bulk row for deep pages.',
          NOTIFICATION_TYPES[index % 3],
          status,
          status === 'read' || index % 5 === 0 ? sqlTime(new Date(createdAt.getTime() + 500)) : null,
          sqlTime(createdAt),
        ]);
      }
      for (let from = 0; from < rows.length; from += 200) {
        const batch = rows.slice(from, from + 200);
        await t.dataSource.query(
          `INSERT INTO notifications (id, userId, subject, message, notificationType, status, readAt, createdAt)
           VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          batch.flat(),
        );
      }
    });

    it('answers every deep page exactly as OFFSET would, for several filters and page sizes', async () => {
      const cases: [Filters, number][] = [
        [{}, 20],
        [{}, 7],
        [{ status: 'pending' }, 20],
        [{ type: 'email' }, 13],
        [{ unreadOnly: 'true' }, 20],
      ];
      for (const [filters, limit] of cases) {
        const total = await countInDatabase('bob', filters);
        const first = Math.ceil(1_000 / limit) + 1;
        const last = Math.ceil(total / limit);
        // A deep page, again, the next one, further ones, one back, the last page, past the end.
        for (const page of [first, first, first + 1, first + 4, first + 2, last, last + 1]) {
          await expectDeepPage(filters, page, limit);
        }
      }
    });

    it('gives the new answer after an INSERT, UPDATE or DELETE moves rows above a deep page', async () => {
      const bob = t.user('bob').id;
      const limit = 20;
      const page = 60; // offset 1,180
      const filterSets: Filters[] = [{}, { unreadOnly: 'true' }, { status: 'sent' }];
      const visitAll = async () => {
        for (const filters of filterSets) {
          await expectDeepPage(filters, page, limit);
          await expectDeepPage(filters, page + 1, limit);
        }
      };
      await visitAll();
      const rows = await stored('bob');

      // A new newest notification shifts every position by one.
      await t.dataSource.query(
        'INSERT INTO notifications (id, userId, subject, message, notificationType, status, readAt, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [randomUUID(), bob, 'Newest', 'Shifts deep pages.', 'email', 'sent', null, sqlTime(new Date())],
      );
      await visitAll();

      // Deleting a row near the top shifts them back.
      await t.dataSource.query('DELETE FROM notifications WHERE id = ?', [rows[3].id]);
      await visitAll();

      // Reading notifications changes the unreadOnly list only.
      const unread = rows.filter((row) => row.readAt === null).slice(0, 5);
      await t.dataSource.query(
        `UPDATE notifications SET readAt = ? WHERE id IN (${unread.map(() => '?').join(', ')})`,
        [sqlTime(new Date()), ...unread.map((row) => row.id)],
      );
      await visitAll();

      // Moving an old row to the top by its timestamp.
      await t.dataSource.query('UPDATE notifications SET createdAt = ? WHERE id = ?', [
        sqlTime(new Date(Date.now() + 60_000)),
        rows.at(-1)!.id,
      ]);
      await visitAll();
    });
  });
});
