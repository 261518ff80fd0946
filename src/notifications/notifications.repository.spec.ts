import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../../test/support/databases.js';
import { openMigratedDataSource, type MigratedDataSource } from '../../test/support/migrated-data-source.js';
import { identityKey } from '../common/text/identity-key.js';
import { SqlRunner } from '../database/sql-runner.js';
import { User } from '../users/entities/user.entity.js';
import { NotificationDto } from './dto/notification-list-response.dto.js';
import { Notification, NOTIFICATION_STATUSES, NOTIFICATION_TYPES } from './entities/notification.entity.js';
import { NotificationsRepository } from './notifications.repository.js';
import { NOTIFICATION_COLUMNS, notificationPageStatement, type NotificationListFilters } from './notifications.sql.js';

describe.each(databasesUnderTest())('NotificationsRepository on %s', (kind) => {
  let dataSource: DataSource;
  let database: MigratedDataSource | undefined;
  let repository: NotificationsRepository;
  const userId = randomUUID();
  let mine: Notification[];

  beforeAll(async () => {
    database = await openMigratedDataSource(kind);
    dataSource = database.dataSource;
    repository = new NotificationsRepository(dataSource, new SqlRunner(dataSource));
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
    mine = await dataSource
      .getRepository(Notification)
      .find({ where: { userId }, order: { createdAt: 'DESC', id: 'DESC' } });
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

  it('declares every column of the entity in its statements', () => {
    expect(NOTIFICATION_COLUMNS).toEqual(
      dataSource.getMetadata(Notification).columns.map((column) => column.databaseName),
    );
  });

  it('pages newest first by OFFSET and after a position, exactly as the API shows TypeORM-read rows', async () => {
    // The list maps stored text to ISO itself; it must answer what NotificationDto.from gives for the entity.
    const shown = (rows: Notification[]) => rows.map((row) => NotificationDto.from(row));
    for (const filters of FILTERS) {
      const expected = matching(filters);
      await expect(repository.page(userId, filters, 4, 2)).resolves.toStrictEqual(shown(expected.slice(2, 6)));
      const position = Math.min(2, expected.length - 1);
      await expect(repository.page(userId, filters, 3, 0, expected[position])).resolves.toStrictEqual(
        shown(expected.slice(position + 1, position + 4)),
      );
    }
  });

  it('counts exactly what the filters match, from the trigger-kept totals, for a live session', async () => {
    const session = { userId, tokenVersion: 0 };
    for (const filters of FILTERS) {
      await expect(repository.countInSession(session, filters)).resolves.toBe(matching(filters).length);
    }
  });

  it('answers no count for a session that is not live: revoked, deactivated or unknown user', async () => {
    await expect(repository.countInSession({ userId, tokenVersion: 1 }, {})).resolves.toBeNull();
    await expect(repository.countInSession({ userId: randomUUID(), tokenVersion: 0 }, {})).resolves.toBeNull();
    await dataSource.getRepository(User).update({ id: userId }, { isActive: false });
    try {
      await expect(repository.countInSession({ userId, tokenVersion: 0 }, {})).resolves.toBeNull();
    } finally {
      await dataSource.getRepository(User).update({ id: userId }, { isActive: true });
    }
    await expect(repository.countInSession({ userId, tokenVersion: 0 }, {})).resolves.toBe(mine.length);
  });

  it('reads the same page straight off the index and through the deferred join', async () => {
    const sql = new SqlRunner(dataSource);
    for (const filters of FILTERS) {
      const expected = matching(filters)
        .slice(2, 6)
        .map((row) => row.id);
      for (const deferredJoinFrom of [0, Number.MAX_SAFE_INTEGER]) {
        const rows = await sql.select<{ id: string }>(
          ...notificationPageStatement(userId, filters, 4, 2, undefined, deferredJoinFrom),
        );
        expect(rows.map((row) => row.id)).toEqual(expected);
      }
    }
  });
});
