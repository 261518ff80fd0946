import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/error-codes.js';
import type { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import type { Notification } from './entities/notification.entity.js';
import { decodeCursor, type NotificationCursor } from './notification-cursor.js';
import { NotificationsRepository } from './notifications.repository.js';

export interface NotificationPage {
  notifications: Notification[];
  total: number;
  /** Position after the last item, when more items follow. */
  next: NotificationCursor | null;
}

@Injectable()
export class NotificationsService {
  constructor(private readonly notifications: NotificationsRepository) {}

  /**
   * One user's notifications, newest first, with the exact total for the same filters. A page
   * number is an OFFSET (over index entries only, see the repository); a cursor continues right
   * after the item it names, at the same cost at any depth.
   */
  async list(userId: string, query: ListNotificationsQueryDto): Promise<NotificationPage> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const total = await this.notifications.count(userId, query);
    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    if (offset >= total) return { notifications: [], total, next: null };

    // One row more than the page tells whether anything follows, without another query.
    const rows = await this.notifications.page(userId, query, query.limit + 1, offset, after);
    const notifications = rows.slice(0, query.limit);
    const last = notifications.at(-1);
    const next = rows.length > query.limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { notifications, total, next };
  }
}
