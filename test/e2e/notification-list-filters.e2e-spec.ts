import * as fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import {
  ALL_FILTERS,
  asJson,
  cursorOf,
  expectError,
  listHelpers,
  matches,
  type Filters,
  type Username,
} from '../support/notification-list.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('GET /api/notifications on %s: filters, authentication and isolation', (kind) => {
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
});
