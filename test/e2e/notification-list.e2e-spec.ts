import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_STATUSES, NOTIFICATION_TYPES } from '../../src/notifications/entities/notification.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import {
  asJson,
  cursorOf,
  expectError,
  ISO_UTC,
  listHelpers,
  matches,
  NOTIFICATION_FIELDS,
  type Filters,
  type Username,
} from '../support/notification-list.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('GET /api/notifications on %s: shape, order and paging', (kind) => {
  let t: TestApp;
  let tokens: Record<Username, string>;
  const { list, stored, walk } = listHelpers(
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

  it('starts from the seed: 64 notifications for alice, 4 each for bob and admin', () => {
    expect(t.seed.notifications).toEqual({
      [t.user('alice').id]: 64,
      [t.user('bob').id]: 4,
      [t.user('admin').id]: 4,
      [t.user('erin').id]: 0,
    });
  });

  describe('response shape and defaults', () => {
    it('answers 200 {notifications, pagination} with page 1, limit 20, total 64, totalPages 4 by default', async () => {
      const response = await list(tokens.alice);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(response.body).sort()).toEqual(['notifications', 'pagination']);
      expect(response.body.pagination).toEqual({
        page: 1,
        limit: 20,
        total: 64,
        totalPages: 4,
        nextCursor: cursorOf(response.body.notifications[19]),
      });
      expect(response.body.notifications).toHaveLength(20);
    });

    it('gives each notification exactly the SPEC fields with the stored values; readAt null exactly when unread', async () => {
      const rows = new Map((await stored('alice')).map((row) => [row.id, row]));
      const response = await list(tokens.alice, { limit: 100 });
      expect(response.body.notifications).toHaveLength(64);
      let read = 0;
      for (const item of response.body.notifications) {
        expect(Object.keys(item).sort()).toEqual(NOTIFICATION_FIELDS);
        expect(item.userId).toBe(t.user('alice').id);
        expect(NOTIFICATION_TYPES).toContain(item.notificationType);
        expect(NOTIFICATION_STATUSES).toContain(item.status);
        expect(item.createdAt).toMatch(ISO_UTC);
        // readAt is an ISO timestamp exactly when the status is read, null otherwise.
        const isoTimestamp = expect.stringMatching(ISO_UTC);
        expect({ status: item.status, readAt: item.readAt }).toEqual({
          status: item.status,
          readAt: item.status === 'read' ? isoTimestamp : null,
        });
        read += item.status === 'read' ? 1 : 0;
        expect(item).toEqual(asJson(rows.get(item.id)!));
      }
      expect(read).toBe(16);
    });

    it('covers every status x type pair four times for alice', async () => {
      for (const status of NOTIFICATION_STATUSES) {
        for (const type of NOTIFICATION_TYPES) {
          const response = await list(tokens.alice, { status, type });
          expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1, nextCursor: null });
        }
      }
    });

    it('answers 200 with an empty list and the true total for a page past the end', async () => {
      for (const [page, limit] of [
        [5, 20],
        [4, 22],
        [2, 64],
        [1_000_000, 1],
      ]) {
        const response = await list(tokens.alice, { page, limit });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          notifications: [],
          pagination: { page, limit, total: 64, totalPages: Math.ceil(64 / limit), nextCursor: null },
        });
      }
      const filtered = await list(tokens.alice, { status: 'read', page: 3, limit: 10 });
      expect(filtered.body).toEqual({
        notifications: [],
        pagination: { page: 3, limit: 10, total: 16, totalPages: 2, nextCursor: null },
      });
    });

    it('accepts limit 1 and limit 100', async () => {
      const one = await list(tokens.alice, { limit: 1 });
      expect(one.status).toBe(200);
      expect(one.body.notifications).toHaveLength(1);
      expect(one.body.pagination).toEqual({
        page: 1,
        limit: 1,
        total: 64,
        totalPages: 64,
        nextCursor: cursorOf(one.body.notifications[0]),
      });
      const hundred = await list(tokens.alice, { limit: 100 });
      expect(hundred.status).toBe(200);
      expect(hundred.body.notifications).toHaveLength(64);
      expect(hundred.body.pagination).toEqual({ page: 1, limit: 100, total: 64, totalPages: 1, nextCursor: null });
    });

    it('answers totalPages 0 and an empty list when nothing matches', async () => {
      const response = await list(tokens.alice, { status: 'read', unreadOnly: 'true' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        notifications: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null },
      });
    });
  });

  describe('order and paging', () => {
    it('orders by createdAt descending, then id descending (the seed shares timestamps between pairs)', async () => {
      const rows = await stored('alice');
      const distinctTimes = new Set(rows.map((row) => row.createdAt.getTime()));
      expect(distinctTimes.size).toBeLessThan(rows.length); // ties exist, so the id tie-break is exercised
      const response = await list(tokens.alice, { limit: 100 });
      expect(response.body.notifications.map((n: { id: string }) => n.id)).toEqual(rows.map((row) => row.id));
      const items = response.body.notifications as { id: string; createdAt: string }[];
      for (let index = 1; index < items.length; index++) {
        const previous = items[index - 1];
        const current = items[index];
        expect(Date.parse(previous.createdAt)).toBeGreaterThanOrEqual(Date.parse(current.createdAt));
        // Within one timestamp, the greater id comes first.
        expect(previous.createdAt !== current.createdAt || previous.id > current.id).toBe(true);
      }
    });

    it('yields every notification exactly once, in order, when walking all pages at several limits', async () => {
      const expected = (await stored('alice')).map((row) => row.id);
      for (const limit of [1, 2, 3, 7, 20, 32, 63, 64, 100]) {
        const ids = await walk('alice', limit);
        expect({ limit, ids }).toEqual({ limit, ids: expected });
        expect(new Set(ids).size).toBe(64);
      }
    });

    it('pages filtered lists without overlap or gaps too', async () => {
      const rows = await stored('alice');
      const combinations: Filters[] = [
        { status: 'read' },
        { unreadOnly: 'true' },
        { type: 'push', unreadOnly: 'true' },
        { status: 'pending', type: 'sms' },
        { unreadOnly: 'false' },
      ];
      for (const filters of combinations) {
        const expected = rows.filter((row) => matches(row, filters)).map((row) => row.id);
        for (const limit of [3, 7]) {
          expect({ filters, limit, ids: await walk('alice', limit, filters) }).toEqual({
            filters,
            limit,
            ids: expected,
          });
        }
      }
    });
  });

  describe('cursor (keyset) pagination', () => {
    /** Follows pagination.nextCursor from the first page to the end. */
    const walkByCursor = async (username: Username, limit: number, filters: Filters = {}) => {
      const ids: string[] = [];
      let response = await list(tokens[username], { ...filters, limit });
      for (let pages = 0; ; pages++) {
        expect(response.status).toBe(200);
        ids.push(...response.body.notifications.map((n: { id: string }) => n.id));
        const { nextCursor } = response.body.pagination;
        if (nextCursor === null || pages > 200) break;
        response = await list(tokens[username], { ...filters, limit, cursor: nextCursor });
        expect(response.body.pagination.page).toBeNull();
      }
      return ids;
    };

    it('walks every notification exactly once, in order, for several limits and filters', async () => {
      const rows = await stored('alice');
      for (const filters of [
        {},
        { status: 'read' },
        { unreadOnly: 'true' },
        { type: 'sms', status: 'failed' },
      ] as Filters[]) {
        const expected = rows.filter((row) => matches(row, filters)).map((row) => row.id);
        for (const limit of [1, 3, 20, 64]) {
          expect({ filters, limit, ids: await walkByCursor('alice', limit, filters) }).toEqual({
            filters,
            limit,
            ids: expected,
          });
        }
      }
    });

    it('gives the same items as the page after the one that returned the cursor', async () => {
      const first = await list(tokens.alice, { limit: 7, page: 2 });
      const viaCursor = await list(tokens.alice, { limit: 7, cursor: first.body.pagination.nextCursor });
      const viaPage = await list(tokens.alice, { limit: 7, page: 3 });
      expect(viaCursor.body.notifications).toEqual(viaPage.body.notifications);
      expect(viaCursor.body.pagination).toMatchObject({ page: null, limit: 7, total: 64, totalPages: 10 });
    });

    it('rejects a forged cursor, a repeated one, and page together with cursor', async () => {
      const { nextCursor } = (await list(tokens.alice, { limit: 5 })).body.pagination;
      for (const query of [
        'cursor=not-a-cursor!',
        `cursor=${Buffer.from('123.not-a-uuid').toString('base64url')}`,
        `cursor=${nextCursor}&cursor=${nextCursor}`,
        `cursor=${nextCursor}&page=2`,
      ]) {
        const response = await list(tokens.alice, query);
        expectError(response, 400, 'validation_failed');
        expect(response.body.details).toMatch(/cursor/);
      }
    });

    it('never crosses into another user’s notifications', async () => {
      const aliceCursor = (await list(tokens.alice, { limit: 3 })).body.pagination.nextCursor;
      const response = await list(tokens.bob, { cursor: aliceCursor, limit: 100 });
      expect(response.status).toBe(200);
      const bob = t.user('bob').id;
      for (const notification of response.body.notifications) expect(notification.userId).toBe(bob);
    });
  });
});
