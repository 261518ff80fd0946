import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, SqlRunner } from '../database/sql-runner.js';
import { Notification } from './entities/notification.entity.js';
import type { NotificationCursor } from './notification-cursor.js';
import {
  notificationCountStatement,
  notificationPageStatement,
  type NotificationListFilters,
} from './notifications.sql.js';

/**
 * Every statement and row mapping of the notification list. Hand-written SQL (notifications.sql.ts)
 * on the shared runner: this is a hot path, and TypeORM's query building and entity hydration cost
 * more CPU here than the database work itself.
 */
@Injectable()
export class NotificationsRepository {
  private readonly rows: EntityRows<Notification>;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
  ) {
    this.rows = new EntityRows(dataSource, Notification);
  }

  /** How many of the user's notifications match the filters (exact). */
  async count(userId: string, filters: NotificationListFilters): Promise<number> {
    const [row] = await this.sql.select<{ total: string | number | null }>(
      ...notificationCountStatement(userId, filters),
    );
    return Number(row?.total ?? 0);
  }

  /** Up to `take` of the user's matching notifications, newest first, from `offset` or after a position. */
  async page(
    userId: string,
    filters: NotificationListFilters,
    take: number,
    offset: number,
    after?: NotificationCursor,
  ): Promise<Notification[]> {
    const position = after && { createdAt: this.rows.toColumn('createdAt', after.createdAt), id: after.id };
    const rows = await this.sql.select<Record<string, unknown>>(
      ...notificationPageStatement(userId, filters, take, offset, position),
    );
    return rows.map((row) => this.rows.fromRow(row));
  }
}
