import { Injectable } from '@nestjs/common';
import { DataSource, In, LessThan, type ObjectLiteral, type Repository, type SelectQueryBuilder } from 'typeorm';
import { Transactions, type Tx } from '../database/transactions.js';
import type { DomainEventType } from '../events/domain-event.js';
import { User } from '../users/entities/user.entity.js';
import { NotificationCount } from './entities/notification-count.entity.js';
import { NotificationPreference } from './entities/notification-preference.entity.js';
import { Notification, NOTIFICATION_TYPES, type NotificationType } from './entities/notification.entity.js';
import { NotificationStreamTicket } from './entities/notification-stream-ticket.entity.js';
import type { NotificationCursor } from './notification-cursor.js';
import type { ThreadCursor } from './thread-cursor.js';
import type { ChannelChoice } from './notification-preferences.js';

export interface NotificationListFilters {
  status?: string;
  type?: string;
  unreadOnly?: boolean;
}

export interface ReadAllFilters {
  type?: string;
  status?: string;
  /** Only the notifications about this document (a thread). */
  documentId?: string;
}

/** One thread: a document's (or a non-document source's) in-app notifications of one user. */
export interface ThreadRow {
  /** '' for a non-document source. */
  documentId: string;
  /** The event type of a non-document thread ('other' without one); '' for a document thread. */
  source: string;
  newestAt: Date;
  total: number;
  unread: number;
}

export interface UnreadCount {
  unread: number;
  byType: Record<NotificationType, number>;
}

/** Below this offset a page is read straight off the index; from it on, ids first, then their rows. */
export const DEFERRED_JOIN_FROM = 1000;

/** The columns a listed notification shows (NotificationDto); the delivery bookkeeping stays unread. */
export const LISTED_COLUMNS = [
  'id',
  'userId',
  'subject',
  'message',
  'notificationType',
  'status',
  'readAt',
  'createdAt',
  'event',
  'documentId',
] as const satisfies readonly (keyof Notification)[];

/** A notification as the list reads it. */
export type ListedNotification = Pick<Notification, (typeof LISTED_COLUMNS)[number]>;

/** One page of the list and the total of the notifications matching its filters. */
export interface NotificationPageRows {
  rows: ListedNotification[];
  total: number;
}

/** Users per IN list (well under either database's parameter limit). */
const IN_CHUNK = 500;

/** Expired stream tickets removed per ticket made: enough to outpace any ticket rate. */
const EXPIRED_TICKETS_PER_CLEANUP = 100;

/**
 * Every statement of the notification list and inbox, through TypeORM. Writes take the Tx of
 * Transactions.run; counts come from notification_counts, which the database triggers keep.
 */
@Injectable()
export class NotificationsRepository {
  private readonly notifications: Repository<Notification>;
  private readonly counts: Repository<NotificationCount>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
  ) {
    this.notifications = dataSource.getRepository(Notification);
    this.counts = dataSource.getRepository(NotificationCount);
  }

  /** How many of the user's notifications match the filters: a sum over at most 32 count rows. */
  async count(userId: string, filters: NotificationListFilters): Promise<number> {
    const row = await this.totalQuery(this.dataSource.createQueryBuilder(), userId, filters).getRawOne<{
      total: string | number;
    }>();
    return Number(row?.total ?? 0);
  }

  /**
   * Up to `take` of the user's matching notifications, newest first, from `offset` or after a
   * position, with the total for the same filters read in the same statement (alone only when the
   * page is empty). Deep pages and cursor seeks read the ids off the (userId, [filter,] createdAt, id)
   * index first, so skipped entries are index entries, then load only the page's rows.
   */
  async page(
    userId: string,
    filters: NotificationListFilters,
    take: number,
    offset: number,
    after?: NotificationCursor,
  ): Promise<NotificationPageRows> {
    const withTotal = (query: SelectQueryBuilder<Notification>) =>
      query.addSelect((sub) => this.totalQuery(sub, userId, filters), 'total');
    if (!after && offset < DEFERRED_JOIN_FROM) {
      const { entities, raw } = await withTotal(
        this.ordered(userId, filters, after).select(LISTED_COLUMNS.map((column) => `n.${column}`)),
      )
        .skip(offset)
        .take(take)
        .getRawAndEntities<{ total: string | number }>();
      if (entities.length === 0) return { rows: [], total: await this.count(userId, filters) };
      return { rows: entities, total: Number(raw[0].total) };
    }
    const ids = await withTotal(this.ordered(userId, filters, after).select(['n.id', 'n.createdAt']))
      .offset(offset)
      .limit(take)
      .getRawMany<{ n_id: string; total: string | number }>();
    if (ids.length === 0) return { rows: [], total: await this.count(userId, filters) };
    const rows = await this.notifications
      .createQueryBuilder('n')
      .select(LISTED_COLUMNS.map((column) => `n.${column}`))
      .where({ id: In(ids.map((row) => row.n_id)) })
      .getMany();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return {
      rows: ids.map((row) => byId.get(row.n_id)).filter((row) => row !== undefined),
      total: Number(ids[0].total),
    };
  }

  /** The sum of the user's count rows matching the filters, as a query of its own or a subquery. */
  private totalQuery<T extends ObjectLiteral>(
    query: SelectQueryBuilder<T>,
    userId: string,
    filters: NotificationListFilters,
  ): SelectQueryBuilder<T> {
    query
      .select('COALESCE(SUM(c.total), 0)', 'total')
      .from(NotificationCount, 'c')
      .where('c.userId = :userId', { userId });
    if (filters.status) query.andWhere('c.status = :status', { status: filters.status });
    if (filters.type) query.andWhere('c.notificationType = :type', { type: filters.type });
    if (filters.unreadOnly) query.andWhere('c.isRead = 0');
    return query;
  }

  /** The user's matching notifications in the list order (createdAt, id descending), after a position. */
  private ordered(
    userId: string,
    filters: NotificationListFilters,
    after?: NotificationCursor,
  ): SelectQueryBuilder<Notification> {
    const query = this.notifications.createQueryBuilder('n').where('n.userId = :userId', { userId });
    if (filters.status) query.andWhere('n.status = :status', { status: filters.status });
    if (filters.type) query.andWhere('n.notificationType = :type', { type: filters.type });
    if (filters.unreadOnly) query.andWhere('n.readAt IS NULL');
    if (after) {
      // The bare upper bound lets SQLite seek; the spelled-out OR lets MariaDB seek within one instant.
      query.andWhere('n.createdAt <= :at AND (n.createdAt < :at OR (n.createdAt = :at AND n.id < :id))', {
        at: after.createdAt,
        id: after.id,
      });
    }
    return query.orderBy('n.createdAt', 'DESC').addOrderBy('n.id', 'DESC');
  }

  /** One of the user's notifications; another user's is null. */
  findOwn(userId: string, id: string): Promise<Notification | null> {
    return this.notifications.findOneBy({ id, userId });
  }

  /** Sets the read state (status follows, the delivery status is kept); answers whether a row changed. */
  async setRead(userId: string, id: string, read: boolean, at: Date): Promise<boolean> {
    // A row read before delivery status was recorded returns to `sent` (see Notification.deliveryStatus).
    const deliveryStatus = "COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END)";
    const result = await this.transactions.run((tx) => {
      const update = tx.createQueryBuilder().update(Notification).where('id = :id AND userId = :userId', {
        id,
        userId,
      });
      return read
        ? update
            .set({ readAt: () => 'COALESCE(readAt, :at)', deliveryStatus: () => deliveryStatus, status: 'read' })
            .andWhere("(readAt IS NULL OR status <> 'read')")
            .setParameter('at', at)
            .execute()
        : update
            .set({ readAt: null, status: () => deliveryStatus })
            .andWhere(`(readAt IS NOT NULL OR status <> ${deliveryStatus})`)
            .execute();
    });
    return (result.affected ?? 0) > 0;
  }

  /**
   * One read-all chunk in its own short transaction: up to `limit` of the user's unread matching
   * notifications created at or before `before`, oldest first, become read. The count triggers
   * keep notification_counts. Answers how many changed; fewer than `limit` means none are left.
   */
  async readAllChunk(userId: string, filters: ReadAllFilters, before: Date, at: Date, limit: number): Promise<number> {
    const conditions = ['userId = ?', 'readAt IS NULL', 'createdAt <= ?'];
    const parameters: unknown[] = [userId, this.stored('createdAt', before)];
    if (filters.type) {
      conditions.push('notificationType = ?');
      parameters.push(filters.type);
    }
    if (filters.status) {
      conditions.push('status = ?');
      parameters.push(filters.status);
    }
    if (filters.documentId) {
      conditions.push('documentId = ?');
      parameters.push(filters.documentId);
    }
    // UPDATE ... ORDER BY ... LIMIT (both databases; TypeORM's builder refuses LIMIT on SQLite).
    // A write as the first statement makes SQLite wait for a second writer rather than fail with a stale snapshot.
    const sql = `UPDATE notifications SET readAt = ?,
        deliveryStatus = COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END), status = 'read'
      WHERE ${conditions.join(' AND ')} ORDER BY createdAt, id LIMIT ?`;
    return this.transactions.run(
      (tx) => affectedRows(tx, sql, [this.stored('readAt', at), ...parameters, limit]),
      // Read committed: no gap locks, so new notifications for the user do not queue behind a chunk.
      { readCommitted: true },
    );
  }

  /**
   * One page of the user's threads (their in-app notifications grouped by document, or by event
   * type when there is none), newest first, after a position. Counted from the rows in one
   * statement through IDX_notifications_user_type_document, so every count is exact as of it.
   */
  async threads(userId: string, take: number, after?: ThreadCursor): Promise<ThreadRow[]> {
    const query = this.notifications
      .createQueryBuilder('n')
      .select("COALESCE(n.documentId, '')", 'documentId')
      .addSelect("CASE WHEN n.documentId IS NULL THEN COALESCE(n.event, 'other') ELSE '' END", 'source')
      .addSelect('MAX(n.createdAt)', 'newestAt')
      .addSelect('COUNT(*)', 'total')
      .addSelect('SUM(CASE WHEN n.readAt IS NULL THEN 1 ELSE 0 END)', 'unread')
      .where("n.userId = :userId AND n.notificationType = 'in_app'", { userId })
      .groupBy('documentId')
      .addGroupBy('source')
      .orderBy('newestAt', 'DESC')
      .addOrderBy('documentId', 'DESC')
      .addOrderBy('source', 'DESC')
      .limit(take);
    if (after) {
      query.having(
        'MAX(n.createdAt) < :at OR (MAX(n.createdAt) = :at AND (documentId < :doc OR (documentId = :doc AND source < :source)))',
        { at: this.stored('createdAt', after.newestAt), doc: after.documentId, source: after.source },
      );
    }
    const rows = await query.getRawMany<{
      documentId: string;
      source: string;
      newestAt: Date | string;
      total: number | string;
      unread: number | string;
    }>();
    return rows.map((row) => ({
      documentId: row.documentId,
      source: row.source,
      newestAt: row.newestAt instanceof Date ? row.newestAt : new Date(`${row.newestAt.replace(' ', 'T')}Z`),
      total: Number(row.total),
      unread: Number(row.unread ?? 0),
    }));
  }

  /** The newest in-app notification of one of the user's threads. */
  newestOfThread(userId: string, thread: Pick<ThreadRow, 'documentId' | 'source'>): Promise<Notification | null> {
    const query = this.notifications
      .createQueryBuilder('n')
      .where("n.userId = :userId AND n.notificationType = 'in_app'", { userId });
    if (thread.documentId) query.andWhere('n.documentId = :documentId', { documentId: thread.documentId });
    else if (thread.source === 'other') query.andWhere('n.documentId IS NULL AND n.event IS NULL');
    else query.andWhere('n.documentId IS NULL AND n.event = :event', { event: thread.source });
    return query.orderBy('n.createdAt', 'DESC').addOrderBy('n.id', 'DESC').getOne();
  }

  /** Current titles of the documents (a purged one is absent). */
  async documentTitles(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource
      .createQueryBuilder()
      .select('d.id', 'id')
      .addSelect('d.title', 'title')
      .from('documents', 'd')
      .where('d.id IN (:...ids)', { ids })
      .getRawMany<{ id: string; title: string }>();
    return new Map(rows.map((row) => [row.id, row.title]));
  }

  /** Unread totals by type from the trigger-kept counts (at most 16 rows). */
  async unreadCount(userId: string): Promise<UnreadCount> {
    const rows = await this.counts
      .createQueryBuilder('c')
      .select('c.notificationType', 'notificationType')
      .addSelect('COALESCE(SUM(c.total), 0)', 'total')
      .where('c.userId = :userId AND c.isRead = 0', { userId })
      .groupBy('c.notificationType')
      .getRawMany<{ notificationType: string; total: string | number }>();
    const byType = Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, 0])) as Record<NotificationType, number>;
    for (const row of rows) {
      if (row.notificationType in byType) byType[row.notificationType as NotificationType] = Number(row.total);
    }
    return { unread: Object.values(byType).reduce((sum, value) => sum + value, 0), byType };
  }

  async deleteOwn(userId: string, id: string): Promise<boolean> {
    const result = await this.transactions.run((tx) => tx.delete(Notification, { id, userId }));
    return (result.affected ?? 0) > 0;
  }

  /** The user's notifications created after the given one, oldest first (empty when it is not theirs). */
  async newerThan(userId: string, id: string, limit: number): Promise<Notification[]> {
    const anchor = await this.findOwn(userId, id);
    if (!anchor) return [];
    return this.notifications
      .createQueryBuilder('n')
      .where('n.userId = :userId AND n.createdAt >= :at AND (n.createdAt > :at OR n.id > :id)', {
        userId,
        at: anchor.createdAt,
        id: anchor.id,
      })
      .orderBy('n.createdAt', 'ASC')
      .addOrderBy('n.id', 'ASC')
      .take(limit)
      .getMany();
  }

  /** Whether each user is active and their token version (the stream session sweep); unknown users are absent. */
  async sessionStates(userIds: string[]): Promise<Map<string, { isActive: boolean; tokenVersion: number }>> {
    const states = new Map<string, { isActive: boolean; tokenVersion: number }>();
    for (let start = 0; start < userIds.length; start += IN_CHUNK) {
      const users = await this.dataSource.getRepository(User).find({
        select: { id: true, isActive: true, tokenVersion: true },
        where: { id: In(userIds.slice(start, start + IN_CHUNK)) },
      });
      for (const user of users) states.set(user.id, { isActive: user.isActive, tokenVersion: user.tokenVersion });
    }
    return states;
  }

  storedPreferences(userId: string): Promise<NotificationPreference[]> {
    return this.dataSource.getRepository(NotificationPreference).findBy({ userId });
  }

  /** Stores the given choices (one upsert, in one transaction). */
  async savePreferences(userId: string, choices: Partial<Record<DomainEventType, ChannelChoice>>): Promise<void> {
    const rows = Object.entries(choices).map(([event, choice]) => ({
      userId,
      event,
      inApp: choice.in_app,
      email: choice.email.mode !== 'off',
      emailMode: choice.email.mode,
      emailDelayMinutes: choice.email.delayMinutes,
    }));
    if (rows.length === 0) return;
    await this.transactions.run((tx) => tx.getRepository(NotificationPreference).upsert(rows, ['userId', 'event']));
  }

  async createTicket(ticket: NotificationStreamTicket): Promise<void> {
    await this.transactions.run((tx) => tx.insert(NotificationStreamTicket, ticket));
  }

  /**
   * Removes some expired tickets: found by a plain read, deleted by primary key in a transaction of
   * their own, so no range or gap is locked against concurrent ticket inserts (issue 30 #7).
   */
  async deleteExpiredTickets(now: Date): Promise<void> {
    const tickets = this.dataSource.getRepository(NotificationStreamTicket);
    const expired = await tickets.find({
      select: { id: true },
      where: { expiresAt: LessThan(now) },
      take: EXPIRED_TICKETS_PER_CLEANUP,
    });
    if (expired.length === 0) return;
    const ids = expired.map((ticket) => ticket.id);
    await this.transactions.run((tx) => tx.delete(NotificationStreamTicket, { id: In(ids) }), { readCommitted: true });
  }

  /** Uses the ticket up: answers it if it existed and had not expired, and deletes it either way. */
  async consumeTicket(id: string, now: Date): Promise<NotificationStreamTicket | null> {
    return this.transactions.run(async (tx) => {
      const ticket = await tx.findOneBy(NotificationStreamTicket, { id });
      if (!ticket) return null;
      // The DELETE decides between two concurrent uses: only one removes the row.
      if ((await tx.delete(NotificationStreamTicket, { id })).affected !== 1) return null;
      return ticket.expiresAt.getTime() > now.getTime() ? ticket : null;
    });
  }

  /** A value of a notifications column as the driver stores it (for the statements written as text). */
  private stored(property: 'createdAt' | 'readAt', value: Date): unknown {
    const column = this.dataSource.getMetadata(Notification).findColumnWithPropertyName(property)!;
    return this.dataSource.driver.preparePersistentValue(value, column);
  }
}

/** Runs a write written as text in the transaction and answers the rows it changed. */
async function affectedRows(tx: Tx, sql: string, parameters: unknown[]): Promise<number> {
  const result = await tx.queryRunner!.query(sql, parameters, true);
  return result.affected ?? 0;
}
