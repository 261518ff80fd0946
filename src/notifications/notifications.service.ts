import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiError } from '../common/errors/error-codes.js';
import type { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import { decodeCursor, type NotificationCursor } from './notification-cursor.js';
import { NotificationCount } from './entities/notification-count.entity.js';
import { Notification } from './entities/notification.entity.js';

export interface NotificationPage {
  notifications: Notification[];
  total: number;
  /** Position after the last item, when more items follow. */
  next: NotificationCursor | null;
}

type Filters = Pick<ListNotificationsQueryDto, 'status' | 'type' | 'unreadOnly'>;

@Injectable()
export class NotificationsService {
  constructor(
    @InjectRepository(Notification) private readonly notifications: Repository<Notification>,
    @InjectRepository(NotificationCount) private readonly counts: Repository<NotificationCount>,
  ) {}

  /** One user's notifications, newest first, with the exact total for the same filters. */
  async list(userId: string, query: ListNotificationsQueryDto): Promise<NotificationPage> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const total = await this.count(userId, query);
    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    if (offset >= total) return { notifications: [], total, next: null };
    // One row more than the page tells whether anything follows, without another query.
    const rows = await this.page(userId, query, offset, after);
    const notifications = rows.slice(0, query.limit);
    const last = notifications.at(-1);
    const next = rows.length > query.limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { notifications, total, next };
  }

  /** Sum over at most 32 trigger-maintained rows instead of a COUNT over every notification. */
  async count(userId: string, filters: Filters): Promise<number> {
    const { where, parameters } = filterClause(userId, filters, 'isRead = 0');
    const [row] = await this.counts.manager.query<{ total: string | number | null }[]>(
      `SELECT COALESCE(SUM(total), 0) AS total FROM notification_counts WHERE ${where}`,
      parameters,
    );
    return Number(row?.total ?? 0);
  }

  /**
   * One statement, a deferred join: the inner query takes the page's ids from the
   * (userId, [filter,] createdAt, id) index alone, so a deep OFFSET skips index entries rather
   * than rows, and only the page's rows are then read. With a cursor the inner query is a
   * keyset seek instead. Hand-written SQL: this is the hot path, and TypeORM's query building
   * and entity hydration cost more CPU here than the database work itself.
   */
  private async page(
    userId: string,
    query: ListNotificationsQueryDto,
    offset: number,
    after?: NotificationCursor,
  ): Promise<Notification[]> {
    const { where, parameters } = filterClause(userId, query, 'readAt IS NULL');
    let seek = '';
    if (after) {
      const createdAt = this.persisted('createdAt', after.createdAt);
      // Written with a bare upper bound on createdAt so SQLite, too, seeks into the index range.
      seek = ' AND createdAt <= ? AND (createdAt < ? OR id < ?)';
      parameters.push(createdAt, createdAt, after.id);
    }
    parameters.push(query.limit + 1, offset);
    const rows = await this.notifications.manager.query<Record<string, unknown>[]>(
      `SELECT n.id, n.userId, n.subject, n.message, n.notificationType, n.status, n.readAt, n.createdAt
       FROM notifications n
       JOIN (SELECT id, createdAt FROM notifications WHERE ${where}${seek}
             ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?) p ON p.id = n.id
       ORDER BY p.createdAt DESC, p.id DESC`,
      parameters,
    );
    return rows.map((row) => this.hydrate(row));
  }

  /** A value in the form the driver stores the column (SQLite keeps dates as UTC text). */
  private persisted(property: keyof Notification, value: unknown): unknown {
    const column = this.notifications.metadata.findColumnWithPropertyName(property)!;
    return this.notifications.manager.connection.driver.preparePersistentValue(value, column);
  }

  private hydrate(row: Record<string, unknown>): Notification {
    const driver = this.notifications.manager.connection.driver;
    const notification = new Notification();
    for (const column of this.notifications.metadata.columns) {
      const value = row[column.databaseName];
      (notification as unknown as Record<string, unknown>)[column.propertyName] =
        value === null || value === undefined ? null : driver.prepareHydratedValue(value, column);
    }
    return notification;
  }
}

/** WHERE clause shared by the count and the page: same filters, same parameter order. */
function filterClause(
  userId: string,
  filters: Filters,
  unreadCondition: string,
): { where: string; parameters: unknown[] } {
  const conditions = ['userId = ?'];
  const parameters: unknown[] = [userId];
  if (filters.status) {
    conditions.push('status = ?');
    parameters.push(filters.status);
  }
  if (filters.type) {
    conditions.push('notificationType = ?');
    parameters.push(filters.type);
  }
  if (filters.unreadOnly) conditions.push(unreadCondition);
  return { where: conditions.join(' AND '), parameters };
}
