import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type SelectQueryBuilder } from 'typeorm';
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
  async list(userId: string, query: ListNotificationsQueryDto, pageGiven = true): Promise<NotificationPage> {
    if (query.cursor !== undefined && pageGiven) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const total = await this.count(userId, query);
    const offset = after ? 0 : (query.page - 1) * query.limit;
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
    const builder = this.counts
      .createQueryBuilder('c')
      .select('COALESCE(SUM(c.total), 0)', 'total')
      .where('c.userId = :userId', { userId });
    if (filters.status) builder.andWhere('c.status = :status', { status: filters.status });
    if (filters.type) builder.andWhere('c.notificationType = :type', { type: filters.type });
    if (filters.unreadOnly) builder.andWhere('c.isRead = 0');
    const row = await builder.getRawOne<{ total: string | number }>();
    return Number(row?.total ?? 0);
  }

  /**
   * Deferred join: the ids of the page come from the (userId, [filter,] createdAt, id) index
   * alone, so a deep OFFSET skips index entries instead of whole rows; then only the page's
   * rows are read. With a cursor the id query is a keyset seek instead of an OFFSET.
   */
  private async page(
    userId: string,
    query: ListNotificationsQueryDto,
    offset: number,
    after?: NotificationCursor,
  ): Promise<Notification[]> {
    const ids = this.applyFilters(this.notifications.createQueryBuilder('n').select('n.id', 'id'), userId, query);
    if (after) {
      const createdAt = this.createdAtParameter(after.createdAt);
      ids.andWhere('(n.createdAt < :createdAt OR (n.createdAt = :createdAt AND n.id < :afterId))', {
        createdAt,
        afterId: after.id,
      });
    }
    const rows = await ids
      .orderBy('n.createdAt', 'DESC')
      .addOrderBy('n.id', 'DESC')
      .offset(offset)
      .limit(query.limit + 1)
      .getRawMany<{ id: string }>();
    if (rows.length === 0) return [];
    return this.notifications
      .createQueryBuilder('n')
      .where('n.id IN (:...ids)', { ids: rows.map((row) => row.id) })
      .orderBy('n.createdAt', 'DESC')
      .addOrderBy('n.id', 'DESC')
      .getMany();
  }

  /** A Date in the form the driver stores createdAt (SQLite keeps UTC text, MySQL a datetime). */
  private createdAtParameter(value: Date): unknown {
    const column = this.notifications.metadata.findColumnWithPropertyName('createdAt')!;
    return this.notifications.manager.connection.driver.preparePersistentValue(value, column);
  }

  private applyFilters<T extends SelectQueryBuilder<Notification>>(builder: T, userId: string, filters: Filters): T {
    builder.where('n.userId = :userId', { userId });
    if (filters.status) builder.andWhere('n.status = :status', { status: filters.status });
    if (filters.type) builder.andWhere('n.notificationType = :type', { type: filters.type });
    if (filters.unreadOnly) builder.andWhere('n.readAt IS NULL');
    return builder;
  }
}
