import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiError } from '../common/errors/error-codes.js';
import { entityFromRow, HotPathSql, persistedValue } from '../database/hot-path-sql.js';
import type { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import { decodeCursor, type NotificationCursor } from './notification-cursor.js';
import { Notification } from './entities/notification.entity.js';

export interface NotificationPage {
  notifications: Notification[];
  total: number;
  /** Position after the last item, when more items follow. */
  next: NotificationCursor | null;
}

type Filters = Pick<ListNotificationsQueryDto, 'status' | 'type' | 'unreadOnly'>;

/** Where a page query starts: after a client's cursor, or at a remembered position (inclusive). */
interface Seek {
  from: NotificationCursor;
  inclusive: boolean;
}

@Injectable()
export class NotificationsService {
  constructor(
    @InjectRepository(Notification) private readonly notifications: Repository<Notification>,
    private readonly sql: HotPathSql,
  ) {}

  /** One user's notifications, newest first, with the exact total for the same filters. */
  async list(userId: string, query: ListNotificationsQueryDto): Promise<NotificationPage> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const { total } = await this.count(userId, query);
    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    if (offset >= total) return { notifications: [], total, next: null };

    let rows: Notification[];
    if (after) {
      rows = await this.page(userId, query, 0, { from: after, inclusive: false });
    } else {
      rows = await this.page(userId, query, offset);
    }
    // One row more than the page tells whether anything follows, without another query.
    const notifications = rows.slice(0, query.limit);
    const last = notifications.at(-1);
    const next = rows.length > query.limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { notifications, total, next };
  }

  /**
   * Exact total for the filters, as a sum over at most 32 trigger-maintained rows instead of a
   * COUNT over every notification.
   */
  async count(userId: string, filters: Filters): Promise<{ total: number }> {
    const { conditions, parameters } = filterConditions(filters, 'isRead = 0');
    const matches = conditions.length ? conditions.join(' AND ') : '1 = 1';
    const [row] = await this.sql.select<{ total: string | number | null }>(
      `SELECT COALESCE(SUM(CASE WHEN ${matches} THEN total ELSE 0 END), 0) AS total
       FROM notification_counts WHERE userId = ?`,
      [...parameters, userId],
    );
    return { total: Number(row?.total ?? 0) };
  }

  /**
   * One statement, a deferred join: the inner query takes the page's ids from the
   * (userId, [filter,] createdAt, id) index alone, so a deep OFFSET skips index entries rather
   * than rows, and only the page's rows are then read. With a seek position the inner query is a
   * keyset seek instead. Hand-written SQL: this is the hot path, and TypeORM's query building
   * and entity hydration cost more CPU here than the database work itself.
   */
  private async page(
    userId: string,
    query: ListNotificationsQueryDto,
    offset: number,
    seek?: Seek,
  ): Promise<Notification[]> {
    const filter = filterConditions(query, 'readAt IS NULL');
    const where = ['userId = ?', ...filter.conditions].join(' AND ');
    const parameters: unknown[] = [userId, ...filter.parameters];
    let seekCondition = '';
    if (seek) {
      const createdAt = this.persisted('createdAt', seek.from.createdAt);
      // Written with a bare upper bound on createdAt so SQLite, too, seeks into the index range.
      seekCondition = ` AND createdAt <= ? AND (createdAt < ? OR id ${seek.inclusive ? '<=' : '<'} ?)`;
      parameters.push(createdAt, createdAt, seek.from.id);
    }
    parameters.push(query.limit + 1, offset);
    const rows = await this.sql.select<Record<string, unknown>>(
      `SELECT n.id, n.userId, n.subject, n.message, n.notificationType, n.status, n.readAt, n.createdAt
       FROM notifications n
       JOIN (SELECT id, createdAt FROM notifications WHERE ${where}${seekCondition}
             ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?) p ON p.id = n.id
       ORDER BY p.createdAt DESC, p.id DESC`,
      parameters,
    );
    const metadata = this.notifications.metadata;
    const driver = this.notifications.manager.connection.driver;
    return rows.map((row) => entityFromRow(metadata, driver, row) as Notification);
  }

  /** A value in the form the driver stores the column (SQLite keeps dates as UTC text). */
  private persisted(property: keyof Notification, value: unknown): unknown {
    return persistedValue(this.notifications.metadata, this.notifications.manager.connection.driver, property, value);
  }
}

/** The filter conditions shared by the count and the page, in the same parameter order. */
function filterConditions(filters: Filters, unreadCondition: string): { conditions: string[]; parameters: unknown[] } {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  if (filters.status) {
    conditions.push('status = ?');
    parameters.push(filters.status);
  }
  if (filters.type) {
    conditions.push('notificationType = ?');
    parameters.push(filters.type);
  }
  if (filters.unreadOnly) conditions.push(unreadCondition);
  return { conditions, parameters };
}
