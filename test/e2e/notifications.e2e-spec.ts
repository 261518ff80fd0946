import { randomUUID } from 'node:crypto';
import * as fc from 'fast-check';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const NOTIFICATION_FIELDS = [
  'createdAt',
  'documentId',
  'event',
  'id',
  'message',
  'notificationType',
  'readAt',
  'status',
  'subject',
  'userId',
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Username = 'alice' | 'bob' | 'admin';
interface Filters {
  status?: string;
  type?: string;
  unreadOnly?: 'true' | 'false';
}

/** Every filter combination: (4 statuses + none) x (4 types + none) x (true, false, absent). */
const ALL_FILTERS: Filters[] = [undefined, ...NOTIFICATION_STATUSES].flatMap((status) =>
  [undefined, ...NOTIFICATION_TYPES].flatMap((type) =>
    ([undefined, 'true', 'false'] as const).map((unreadOnly) => {
      const filters: Filters = {};
      if (status) filters.status = status;
      if (type) filters.type = type;
      if (unreadOnly) filters.unreadOnly = unreadOnly;
      return filters;
    }),
  ),
);

/** A timestamp as both databases store DATETIME(3) (UTC), usable as a `?` parameter on either. */
/** The cursor the service hands out for "after this item" (base64url of "<epoch ms>.<id>"). */
const cursorOf = (notification: { createdAt: string; id: string }) =>
  Buffer.from(`${Date.parse(notification.createdAt)}.${notification.id}`).toString('base64url');

const sqlTime = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');

function expectError(response: Response, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: code } });
  expect(Object.keys(response.body).sort()).toEqual(['details', 'error']);
  expect(typeof response.body.details).toBe('string');
  expect(response.body.details.length).toBeGreaterThan(0);
}

/** Newest first: createdAt descending, then id descending. */
function newestFirst(a: Notification, b: Notification): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function matches(notification: Notification, filters: Filters): boolean {
  return (
    (filters.status === undefined || notification.status === filters.status) &&
    (filters.type === undefined || notification.notificationType === filters.type) &&
    (filters.unreadOnly !== 'true' || notification.readAt === null)
  );
}

function asJson(notification: Notification) {
  return {
    id: notification.id,
    userId: notification.userId,
    subject: notification.subject,
    message: notification.message,
    notificationType: notification.notificationType,
    status: notification.status,
    readAt: notification.readAt ? notification.readAt.toISOString() : null,
    createdAt: notification.createdAt.toISOString(),
    event: notification.event ?? null,
    documentId: notification.documentId ?? null,
  };
}

describe.each(databasesUnderTest())('GET /api/notifications on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<Username, string>;

  const list = (token: string, query: Record<string, string | number> | string = {}) => {
    const qs =
      typeof query === 'string'
        ? query
        : new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return request(t.url)
      .get(`/api/notifications${qs ? `?${qs}` : ''}`)
      .set('Authorization', `Bearer ${token}`);
  };

  /** The user's notifications straight from the database, newest first. */
  const stored = async (username: Username): Promise<Notification[]> =>
    (await t.dataSource.getRepository(Notification).findBy({ userId: t.user(username).id })).sort(newestFirst);

  /** COUNT(*) in the notifications table for one user and filter combination. */
  const countInDatabase = async (username: Username, filters: Filters): Promise<number> => {
    const where = ['userId = ?'];
    const parameters: unknown[] = [t.user(username).id];
    if (filters.status) {
      where.push('status = ?');
      parameters.push(filters.status);
    }
    if (filters.type) {
      where.push('notificationType = ?');
      parameters.push(filters.type);
    }
    if (filters.unreadOnly === 'true') where.push('readAt IS NULL');
    const rows: { total: number | string }[] = await t.dataSource.query(
      `SELECT COUNT(*) AS total FROM notifications WHERE ${where.join(' AND ')}`,
      parameters,
    );
    return Number(rows[0].total);
  };

  /** For every filter combination: the API total is COUNT(*), and the listed ids are exactly the matching rows in order. */
  const expectTotalsMatchDatabase = async (username: Username) => {
    const rows = await stored(username);
    expect(rows.length).toBeLessThanOrEqual(100);
    for (const filters of ALL_FILTERS) {
      const response = await list(tokens[username], { ...filters, limit: 100 });
      expect(response.status).toBe(200);
      const total = await countInDatabase(username, filters);
      const expected = rows.filter((row) => matches(row, filters));
      expect({ filters, total: response.body.pagination.total }).toEqual({ filters, total });
      expect(expected).toHaveLength(total);
      expect(response.body.pagination).toEqual({
        page: 1,
        limit: 100,
        total,
        totalPages: Math.ceil(total / 100),
        nextCursor: null,
      });
      expect(response.body.notifications.map((n: { id: string }) => n.id)).toEqual(expected.map((row) => row.id));
    }
  };

  /** Walks every page at `limit` and returns the ids in order, checking each page's pagination. */
  const walk = async (username: Username, limit: number, filters: Filters = {}): Promise<string[]> => {
    const ids: string[] = [];
    const first = await list(tokens[username], { ...filters, limit, page: 1 });
    expect(first.status).toBe(200);
    const { total, totalPages } = first.body.pagination;
    expect(totalPages).toBe(Math.ceil(total / limit));
    for (let page = 1; page <= totalPages; page++) {
      const response = page === 1 ? first : await list(tokens[username], { ...filters, limit, page });
      expect(response.status).toBe(200);
      const nextCursor = page < totalPages ? cursorOf(response.body.notifications.at(-1)) : null;
      expect(response.body.pagination).toEqual({ page, limit, total, totalPages, nextCursor });
      const expectedSize = page < totalPages ? limit : total - limit * (totalPages - 1);
      expect(response.body.notifications).toHaveLength(expectedSize);
      ids.push(...response.body.notifications.map((n: { id: string }) => n.id));
    }
    return ids;
  };

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

  describe('filters', () => {
    it('combines status, type and unreadOnly with AND; totals equal COUNT(*) for every combination', async () => {
      await expectTotalsMatchDatabase('alice');
      await expectTotalsMatchDatabase('bob');
      await expectTotalsMatchDatabase('admin');
    });

    it('unreadOnly=true keeps only notifications whose readAt is null; unreadOnly=false filters nothing', async () => {
      const unread = await list(tokens.alice, { unreadOnly: 'true', limit: 100 });
      expect(unread.body.pagination.total).toBe(48);
      expect(unread.body.notifications.every((n: { readAt: unknown }) => n.readAt === null)).toBe(true);

      const all = await list(tokens.alice, { limit: 100 });
      const notFiltered = await list(tokens.alice, { unreadOnly: 'false', limit: 100 });
      expect(notFiltered.body).toEqual(all.body);
      expect(notFiltered.body.pagination.total).toBe(64);

      for (const status of NOTIFICATION_STATUSES) {
        const withFalse = await list(tokens.alice, { status, unreadOnly: 'false' });
        const without = await list(tokens.alice, { status });
        expect(withFalse.body).toEqual(without.body);
      }
    });

    it('status=read&unreadOnly=true matches nothing', async () => {
      const response = await list(tokens.alice, 'status=read&unreadOnly=true');
      expect(response.status).toBe(200);
      expect(response.body.pagination.total).toBe(0);
      expect(response.body.notifications).toEqual([]);
    });

    it('each single filter returns only matching items', async () => {
      for (const status of NOTIFICATION_STATUSES) {
        const response = await list(tokens.alice, { status, limit: 100 });
        expect(response.body.pagination.total).toBe(16);
        expect(response.body.notifications.every((n: { status: string }) => n.status === status)).toBe(true);
      }
      for (const type of NOTIFICATION_TYPES) {
        const response = await list(tokens.alice, { type, limit: 100 });
        expect(response.body.pagination.total).toBe(16);
        expect(
          response.body.notifications.every((n: { notificationType: string }) => n.notificationType === type),
        ).toBe(true);
      }
    });
  });

  describe('invalid query parameters: 400 validation_failed naming the parameter', () => {
    const cases: [string, string][] = [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['limit=1e2', 'limit'],
      ['limit=99999999999', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=', 'page'],
      ['page=1&page=2', 'page'],
      ['limit=10&limit=20', 'limit'],
      ['status=bogus', 'status'],
      ['status=READ', 'status'],
      ['status=', 'status'],
      ['type=bogus', 'type'],
      ['type=', 'type'],
      ['unreadOnly=yes', 'unreadOnly'],
      ['unreadOnly=1', 'unreadOnly'],
      ['unreadOnly=', 'unreadOnly'],
      ['unreadOnly=true&unreadOnly=false', 'unreadOnly'],
      ['status=read&status=sent', 'status'],
      ['type=sms&type=push', 'type'],
      ['status[$ne]=x', 'status'],
      ['status[]=read', 'status'],
      ['type[$in]=sms', 'type'],
      ['foo=1', 'foo'],
      ['userId=00000000-0000-4000-8000-000000000000', 'userId'],
      ['status=read&foo=1', 'foo'],
    ];

    it.each(cases)('%s', async (query, parameter) => {
      const response = await list(tokens.alice, query);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(parameter);
    });
  });

  describe('authentication', () => {
    it('answers 401 unauthorized without a valid bearer token', async () => {
      expectError(await request(t.url).get('/api/notifications'), 401, 'unauthorized');
      for (const authorization of ['Bearer nope', 'Bearer ', `Basic ${Buffer.from('alice:x').toString('base64')}`]) {
        expectError(
          await request(t.url).get('/api/notifications').set('Authorization', authorization),
          401,
          'unauthorized',
        );
      }
      const [header, payload] = tokens.alice.split('.');
      expectError(await list(`${header}.${payload}.c2lnbmF0dXJl`), 401, 'unauthorized');
    });
  });

  describe('isolation', () => {
    it('never shows bob any of alice’s notifications, for any filter and page; his totals count only his own', async () => {
      const aliceIds = new Set((await stored('alice')).map((row) => row.id));
      const bobRows = await stored('bob');
      const bobIds = new Set(bobRows.map((row) => row.id));
      expect(bobRows).toHaveLength(4);
      for (const filters of ALL_FILTERS) {
        const total = await countInDatabase('bob', filters);
        for (const limit of [1, 3, 20]) {
          for (let page = 1; page <= Math.max(1, Math.ceil(total / limit)) + 1; page++) {
            const response = await list(tokens.bob, { ...filters, page, limit });
            expect(response.status).toBe(200);
            expect(response.body.pagination.total).toBe(total);
            for (const item of response.body.notifications) {
              expect(item.userId).toBe(t.user('bob').id);
              expect(bobIds.has(item.id)).toBe(true);
              expect(aliceIds.has(item.id)).toBe(false);
            }
          }
        }
      }
    });

    it('ignores any attempt to name another user and never counts their notifications', async () => {
      const alice = t.user('alice').id;
      expectError(await list(tokens.bob, { userId: alice }), 400, 'validation_failed');
      expectError(await list(tokens.bob, `user=${alice}`), 400, 'validation_failed');
      const bobAll = await list(tokens.bob, { limit: 100 });
      expect(bobAll.body.pagination.total).toBe(4);
      expect(bobAll.body.notifications.map((n: { userId: string }) => n.userId)).toEqual(
        Array(4).fill(t.user('bob').id),
      );
    });

    it('property: for random users, filters and pages, the answer is exactly that user’s slice', async () => {
      const snapshot: Record<Username, Notification[]> = {
        alice: await stored('alice'),
        bob: await stored('bob'),
        admin: await stored('admin'),
      };
      const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Username>('alice', 'bob', 'admin'),
          optional(fc.constantFrom(...NOTIFICATION_STATUSES)),
          optional(fc.constantFrom(...NOTIFICATION_TYPES)),
          optional(fc.constantFrom<'true' | 'false'>('true', 'false')),
          optional(fc.integer({ min: 1, max: 30 })),
          optional(fc.integer({ min: 1, max: 100 })),
          async (username, status, type, unreadOnly, page, limit) => {
            const filters: Filters = {};
            if (status) filters.status = status;
            if (type) filters.type = type;
            if (unreadOnly) filters.unreadOnly = unreadOnly;
            const query: Record<string, string | number> = { ...filters };
            if (page !== undefined) query.page = page;
            if (limit !== undefined) query.limit = limit;

            const response = await list(tokens[username], query);
            const effectivePage = page ?? 1;
            const effectiveLimit = limit ?? 20;
            const matching = snapshot[username].filter((row) => matches(row, filters));
            const slice = matching.slice((effectivePage - 1) * effectiveLimit, effectivePage * effectiveLimit);
            expect(response.status).toBe(200);
            expect(response.body).toEqual({
              notifications: slice.map(asJson),
              pagination: {
                page: effectivePage,
                limit: effectiveLimit,
                total: matching.length,
                totalPages: Math.ceil(matching.length / effectiveLimit),
                nextCursor: effectivePage * effectiveLimit < matching.length ? cursorOf(asJson(slice.at(-1)!)) : null,
              },
            });
          },
        ),
        { seed: 20_261_122, numRuns: 150 },
      );
    });
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
