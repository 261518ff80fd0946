// Helpers of the notification list specs (notification-list*.e2e-spec.ts): the seeded data's
// expected answers, computed from the rows themselves.
import request from 'supertest';
import { expect } from 'vitest';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import type { TestApp } from './test-app.js';

export const NOTIFICATION_FIELDS = [
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
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type Username = 'alice' | 'bob' | 'admin';
export interface Filters {
  status?: string;
  type?: string;
  unreadOnly?: 'true' | 'false';
}

/** Every filter combination: (4 statuses + none) x (4 types + none) x (true, false, absent). */
export const ALL_FILTERS: Filters[] = [undefined, ...NOTIFICATION_STATUSES].flatMap((status) =>
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

/** The cursor the service hands out for "after this item" (base64url of "<epoch ms>.<id>"). */
export const cursorOf = (notification: { createdAt: string; id: string }) =>
  Buffer.from(`${Date.parse(notification.createdAt)}.${notification.id}`).toString('base64url');

/** A timestamp as both databases store DATETIME(3) (UTC), usable as a `?` parameter on either. */
export const sqlTime = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');

export { expectError } from './expect-error.js';

/** Newest first: createdAt descending, then id descending. */
export function newestFirst(a: Notification, b: Notification): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function matches(notification: Notification, filters: Filters): boolean {
  return (
    (filters.status === undefined || notification.status === filters.status) &&
    (filters.type === undefined || notification.notificationType === filters.type) &&
    (filters.unreadOnly !== 'true' || notification.readAt === null)
  );
}

export function asJson(notification: Notification) {
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

/** The list helpers of one suite, reading its app and tokens when called (they are set in beforeAll). */
export function listHelpers(app: () => TestApp, tokenOf: () => Record<Username, string>) {
  const list = (token: string, query: Record<string, string | number> | string = {}) => {
    const qs =
      typeof query === 'string'
        ? query
        : new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return request(app().url)
      .get(`/api/notifications${qs ? `?${qs}` : ''}`)
      .set('Authorization', `Bearer ${token}`);
  };

  /** The user's notifications straight from the database, newest first. */
  const stored = async (username: Username): Promise<Notification[]> =>
    (
      await app()
        .dataSource.getRepository(Notification)
        .findBy({ userId: app().user(username).id })
    ).sort(newestFirst);

  /** COUNT(*) in the notifications table for one user and filter combination. */
  const countInDatabase = async (username: Username, filters: Filters): Promise<number> => {
    const where = ['userId = ?'];
    const parameters: unknown[] = [app().user(username).id];
    if (filters.status) {
      where.push('status = ?');
      parameters.push(filters.status);
    }
    if (filters.type) {
      where.push('notificationType = ?');
      parameters.push(filters.type);
    }
    if (filters.unreadOnly === 'true') where.push('readAt IS NULL');
    const rows: { total: number | string }[] = await app().dataSource.query(
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
      const response = await list(tokenOf()[username], { ...filters, limit: 100 });
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
    const first = await list(tokenOf()[username], { ...filters, limit, page: 1 });
    expect(first.status).toBe(200);
    const { total, totalPages } = first.body.pagination;
    expect(totalPages).toBe(Math.ceil(total / limit));
    for (let page = 1; page <= totalPages; page++) {
      const response = page === 1 ? first : await list(tokenOf()[username], { ...filters, limit, page });
      expect(response.status).toBe(200);
      const nextCursor = page < totalPages ? cursorOf(response.body.notifications.at(-1)) : null;
      expect(response.body.pagination).toEqual({ page, limit, total, totalPages, nextCursor });
      const expectedSize = page < totalPages ? limit : total - limit * (totalPages - 1);
      expect(response.body.notifications).toHaveLength(expectedSize);
      ids.push(...response.body.notifications.map((n: { id: string }) => n.id));
    }
    return ids;
  };

  return { list, stored, countInDatabase, expectTotalsMatchDatabase, walk };
}
