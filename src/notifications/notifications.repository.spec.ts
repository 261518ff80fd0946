import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../../test/support/databases.js';
import { openMigratedDataSource, type MigratedDataSource } from '../../test/support/migrated-data-source.js';
import { identityKey } from '../common/text/identity-key.js';
import { Transactions } from '../database/transactions.js';
import { User } from '../users/entities/user.entity.js';
import { Notification, NOTIFICATION_STATUSES, NOTIFICATION_TYPES } from './entities/notification.entity.js';
import { LISTED_COLUMNS, NotificationsRepository, type NotificationListFilters } from './notifications.repository.js';

describe.each(databasesUnderTest())('NotificationsRepository on %s', (kind) => {
  let dataSource: DataSource;
  let database: MigratedDataSource | undefined;
  let repository: NotificationsRepository;
  const userId = randomUUID();
  let mine: Notification[];

  beforeAll(async () => {
    database = await openMigratedDataSource(kind);
    dataSource = database.dataSource;
    repository = new NotificationsRepository(dataSource, new Transactions(dataSource));
    const otherId = randomUUID();
    for (const [id, username] of [
      [userId, 'reader'],
      [otherId, 'other'],
    ]) {
      await dataSource.getRepository(User).insert({
        id,
        username,
        usernameKey: identityKey(username),
        email: `${username}@example.com`,
        emailKey: identityKey(`${username}@example.com`),
        firstName: 'F',
        lastName: 'L',
        passwordHash: 'x',
        isActive: true,
        tokenVersion: 0,
        createdAt: new Date(),
      });
    }
    const start = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: 40 }, (_, index) =>
      Object.assign(new Notification(), {
        id: randomUUID(),
        userId: index % 5 === 4 ? otherId : userId,
        subject: `Subject ${index}`,
        message: `Message ${index}`,
        notificationType: NOTIFICATION_TYPES[index % 4],
        status: NOTIFICATION_STATUSES[index % 3],
        readAt: index % 2 ? new Date(start + index * 1000 + 1) : null,
        // Pairs share a timestamp, so the id breaks the tie.
        createdAt: new Date(start + Math.floor(index / 2) * 1000),
      }),
    );
    await dataSource.getRepository(Notification).insert(rows);
    mine = await dataSource.getRepository(Notification).find({
      select: Object.fromEntries(LISTED_COLUMNS.map((column) => [column, true])),
      where: { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  });

  afterAll(async () => {
    await database?.close();
  });

  const matching = (filters: NotificationListFilters) =>
    mine.filter(
      (row) =>
        (!filters.status || row.status === filters.status) &&
        (!filters.type || row.notificationType === filters.type) &&
        (!filters.unreadOnly || row.readAt === null),
    );
  const FILTERS: NotificationListFilters[] = [
    {},
    { status: 'sent' },
    { type: 'push' },
    { unreadOnly: true },
    { status: 'pending', type: 'email', unreadOnly: true },
  ];

  it('pages newest first by OFFSET and after a position with the total, exactly as TypeORM reads the listed columns', async () => {
    for (const filters of FILTERS) {
      const expected = matching(filters);
      const total = expected.length;
      await expect(repository.page(userId, filters, 4, 2)).resolves.toStrictEqual({
        rows: expected.slice(2, 6),
        total,
      });
      const position = Math.min(2, expected.length - 1);
      // After a position the ids come off the index first, then their rows (the deep-page path).
      await expect(repository.page(userId, filters, 3, 0, expected[position])).resolves.toStrictEqual({
        rows: expected.slice(position + 1, position + 4),
        total,
      });
      // Past the end: no rows, the total read alone.
      await expect(repository.page(userId, filters, 4, total)).resolves.toStrictEqual({ rows: [], total });
    }
  });

  it('counts exactly what the filters match, from the trigger-kept totals', async () => {
    for (const filters of FILTERS) {
      await expect(repository.count(userId, filters)).resolves.toBe(matching(filters).length);
    }
    await expect(repository.count(randomUUID(), {})).resolves.toBe(0);
  });
});
