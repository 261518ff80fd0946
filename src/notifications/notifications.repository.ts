import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TokenSession } from '../auth/token-session.js';
import { EntityRows, isDeadlock, isoFromStored, PREPARED, SqlRunner } from '../database/sql-runner.js';
import type { DomainEventType } from '../events/domain-event.js';
import { withLiveSession } from '../users/users.sql.js';
import { Notification, NOTIFICATION_TYPES, type NotificationType } from './entities/notification.entity.js';
import { NotificationStreamTicket } from './entities/notification-stream-ticket.entity.js';
import {
  deleteOwnStatement,
  markReadStatement,
  markUnreadStatement,
  newerThanStatement,
  ownNotificationStatement,
  applyCountDeltasStatement,
  readAllChunkStatement,
  readByIdsStatement,
  type CountDelta,
  type ReadAllPosition,
  unreadByTypeInSessionStatement,
  unreadByTypeStatement,
  COUNTS_BY_STATEMENT_FLAG,
  type ReadAllFilters,
} from './inbox.sql.js';
import type { NotificationCursor } from './notification-cursor.js';
import type { ChannelChoice } from './notification-preferences.js';
import {
  notificationCountStatement,
  notificationPageStatement,
  pageIsDeferredJoin,
  type NotificationListFilters,
} from './notifications.sql.js';

/** One list item as the API answers it (NotificationDto's fields): dates in ISO form. */
export interface NotificationListItem {
  id: string;
  userId: string;
  subject: string;
  message: string;
  notificationType: string;
  status: string;
  readAt: string | null;
  createdAt: string;
  event: string | null;
  documentId: string | null;
}

/** A page row (notificationPageStatement, NOTIFICATION_LIST_COLUMNS' order): the dates as their stored text. */
type StoredListTuple = [
  id: string,
  userId: string,
  subject: string,
  message: string,
  notificationType: string,
  status: string,
  storedReadAt: string | null,
  storedCreatedAt: string,
  event: string | null,
  documentId: string | null,
];

export interface UnreadCount {
  unread: number;
  byType: Record<NotificationType, number>;
}

/**
 * Every statement and row mapping of the notification list and inbox. Hand-written SQL
 * (notifications.sql.ts, inbox.sql.ts) on the shared runner: this is a hot path, and TypeORM's
 * query building and entity hydration cost more CPU here than the database work itself.
 */
@Injectable()
export class NotificationsRepository {
  private readonly rows: EntityRows<Notification>;
  private readonly tickets: EntityRows<NotificationStreamTicket>;
  private readonly mysql: boolean;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
  ) {
    this.rows = new EntityRows(dataSource, Notification);
    this.tickets = new EntityRows(dataSource, NotificationStreamTicket);
    this.mysql = dataSource.options.type === 'mysql';
  }

  /**
   * How many of the session's user's notifications match the filters (exact), in the same
   * statement that checks the session: null when it is not live (revoked, deactivated, gone).
   */
  async countInSession(session: TokenSession, filters: NotificationListFilters): Promise<number | null> {
    const [row] = await this.sql.select<{ value: string | number | null }>(
      ...withLiveSession(notificationCountStatement(session.userId, filters), session),
      PREPARED,
    );
    return row ? Number(row.value ?? 0) : null;
  }

  /** Up to `take` of the user's matching notifications, newest first, from `offset` or after a position, as listed. */
  async page(
    userId: string,
    filters: NotificationListFilters,
    take: number,
    offset: number,
    after?: NotificationCursor,
  ): Promise<NotificationListItem[]> {
    const position = after && { createdAt: this.rows.toColumn('createdAt', after.createdAt), id: after.id };
    // The rows go straight to JSON: dates come as the stored text and become ISO once, with no
    // Date object, entity or driver-built object per row (the list's hot path).
    const rows = await this.sql.selectTuples<StoredListTuple>(
      ...notificationPageStatement(userId, filters, take, offset, position),
      // The deferred join (deep pages, cursors) goes as text: see SelectOptions.
      { prepared: !pageIsDeferredJoin(offset, position) },
    );
    return rows.map(
      ([id, ownerId, subject, message, notificationType, status, readAt, createdAt, event, documentId]) => ({
        id,
        userId: ownerId,
        subject,
        message,
        notificationType,
        status,
        readAt: readAt === null ? null : isoFromStored(readAt),
        createdAt: isoFromStored(createdAt),
        event,
        documentId,
      }),
    );
  }

  /** One of the user's notifications; another user's is null. */
  async findOwn(userId: string, id: string): Promise<Notification | null> {
    const [row] = await this.sql.select<Record<string, unknown>>(...ownNotificationStatement(userId, id));
    return row ? this.rows.fromRow(row) : null;
  }

  /** Sets the read state; answers whether a row changed. */
  async setRead(userId: string, id: string, read: boolean, at: Date): Promise<boolean> {
    const statement = read
      ? markReadStatement(userId, id, this.rows.toColumn('readAt', at))
      : markUnreadStatement(userId, id);
    return (await this.sql.transaction((tx) => tx.execute(...statement))) > 0;
  }

  /**
   * One read-all chunk in its own transaction: up to `limit` of the user's matching unread
   * notifications after `after` become read. Short transactions keep the other writers' waits
   * short, and what is committed stays committed (a retry goes on from what is left). On MySQL the
   * rows are locked first and the chunk keeps notification_counts with one grouped statement, the
   * update trigger standing aside while the session flag is set (migration 0031); SQLite keeps its
   * per-row trigger. Answers the rows changed and where the next chunk starts (null: none left).
   */
  async readAllChunk(
    userId: string,
    filters: ReadAllFilters,
    before: Date,
    at: Date,
    after: ReadAllPosition | null,
    limit: number,
  ): Promise<{ updated: number; next: ReadAllPosition | null }> {
    const beforeColumn = this.rows.toColumn('createdAt', before);
    const atColumn = this.rows.toColumn('readAt', at);
    // A chunk rolled back as a deadlock's victim (its counts upsert against a concurrent insert's
    // trigger) changed nothing and is run again; read committed takes no gap locks, so inserts of
    // new notifications do not queue behind the chunk's locking read.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.readAllChunkOnce(userId, filters, beforeColumn, atColumn, after, limit);
      } catch (error) {
        if (!isDeadlock(error) || attempt === 3) throw error;
      }
    }
  }

  private readAllChunkOnce(
    userId: string,
    filters: ReadAllFilters,
    beforeColumn: unknown,
    atColumn: unknown,
    after: ReadAllPosition | null,
    limit: number,
  ): Promise<{ updated: number; next: ReadAllPosition | null }> {
    return this.sql.transaction(
      async (tx) => {
        const rows = await tx.select<{ id: string; status: string; notificationType: string; createdAt: unknown }>(
          ...readAllChunkStatement(userId, filters, beforeColumn, after, limit, this.mysql),
        );
        if (rows.length === 0) return { updated: 0, next: null };
        const last = rows[rows.length - 1];
        const position = this.rows.toColumn('createdAt', this.rows.fromColumn('createdAt', last.createdAt));
        const next = rows.length < limit ? null : { createdAt: position, id: last.id };
        const ids = rows.map((row) => row.id);
        if (!this.mysql) return { updated: await tx.execute(...readByIdsStatement(userId, ids, atColumn)), next };

        await tx.execute(`SET ${COUNTS_BY_STATEMENT_FLAG} = 1`, []);
        try {
          const updated = await tx.execute(...readByIdsStatement(userId, ids, atColumn));
          // The rows are locked, so every one of them changed; anything else would make the counts wrong.
          if (updated !== rows.length) throw new Error(`read-all changed ${updated} of ${rows.length} locked rows`);
          await tx.execute(...applyCountDeltasStatement(userId, countDeltas(rows)));
          return { updated, next };
        } finally {
          // Cleared before the connection goes back to the pool: later updates on it keep the counts per row.
          await tx.execute(`SET ${COUNTS_BY_STATEMENT_FLAG} = NULL`, []);
        }
      },
      { readCommitted: true },
    );
  }

  async unreadCount(userId: string): Promise<UnreadCount> {
    return unreadCountOf(await this.sql.select<UnreadByTypeRow>(...unreadByTypeStatement(userId)));
  }

  /** As unreadCount, in the same statement as the session check: null when the session is not live. */
  async unreadCountInSession(session: TokenSession): Promise<UnreadCount | null> {
    const rows = await this.sql.select<UnreadByTypeRow>(...unreadByTypeInSessionStatement(session), PREPARED);
    return rows.length === 0 ? null : unreadCountOf(rows);
  }

  async deleteOwn(userId: string, id: string): Promise<boolean> {
    return (await this.sql.transaction((tx) => tx.execute(...deleteOwnStatement(userId, id)))) > 0;
  }

  /** The user's notifications created after the given one, oldest first (empty when it is not theirs). */
  async newerThan(userId: string, id: string, limit: number): Promise<Notification[]> {
    const anchor = await this.findOwn(userId, id);
    if (!anchor) return [];
    const rows = await this.sql.select<Record<string, unknown>>(
      ...newerThanStatement(userId, this.rows.toColumn('createdAt', anchor.createdAt), anchor.id, limit),
    );
    return rows.map((row) => this.rows.fromRow(row));
  }

  /** Whether each user is active and their token version (the stream session sweep); unknown users are absent. */
  async sessionStates(userIds: string[]): Promise<Map<string, { isActive: boolean; tokenVersion: number }>> {
    const states = new Map<string, { isActive: boolean; tokenVersion: number }>();
    for (let start = 0; start < userIds.length; start += 500) {
      const chunk = userIds.slice(start, start + 500);
      const rows = await this.sql.select<{ id: string; isActive: unknown; tokenVersion: number | string }>(
        `SELECT id, isActive, tokenVersion FROM users WHERE id IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const row of rows) {
        states.set(row.id, { isActive: Boolean(Number(row.isActive)), tokenVersion: Number(row.tokenVersion) });
      }
    }
    return states;
  }

  storedPreferences(userId: string): Promise<{ event: string; inApp: unknown; email: unknown }[]> {
    return this.sql.select('SELECT event, inApp, email FROM notification_preferences WHERE userId = ?', [userId]);
  }

  /** Stores the given choices (one statement per event, in one transaction). */
  async savePreferences(userId: string, choices: Partial<Record<DomainEventType, ChannelChoice>>): Promise<void> {
    const upsert = this.mysql
      ? `INSERT INTO notification_preferences (userId, event, inApp, email) VALUES (?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE inApp = VALUES(inApp), email = VALUES(email)`
      : `INSERT INTO notification_preferences (userId, event, inApp, email) VALUES (?, ?, ?, ?)
         ON CONFLICT (userId, event) DO UPDATE SET inApp = excluded.inApp, email = excluded.email`;
    await this.sql.transaction(async (tx) => {
      for (const [event, choice] of Object.entries(choices)) {
        await tx.execute(upsert, [userId, event, choice.in_app ? 1 : 0, choice.email ? 1 : 0]);
      }
    });
  }

  async createTicket(ticket: NotificationStreamTicket, now: Date): Promise<void> {
    const values = (['id', 'userId', 'tokenVersion', 'tokenExpiresAt', 'expiresAt'] as const).map((column) =>
      this.tickets.toColumn(column, ticket[column]),
    );
    await this.sql.transaction(async (tx) => {
      // Expired tickets are removed as new ones are made: the table stays as small as the live ones.
      await tx.execute('DELETE FROM notification_stream_tickets WHERE expiresAt < ?', [
        this.tickets.toColumn('expiresAt', now),
      ]);
      await tx.execute(
        'INSERT INTO notification_stream_tickets (id, userId, tokenVersion, tokenExpiresAt, expiresAt) VALUES (?, ?, ?, ?, ?)',
        values,
      );
    });
  }

  /** Uses the ticket up: answers it if it existed and had not expired, and deletes it either way. */
  async consumeTicket(id: string, now: Date): Promise<NotificationStreamTicket | null> {
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.select<Record<string, unknown>>(
        'SELECT id, userId, tokenVersion, tokenExpiresAt, expiresAt FROM notification_stream_tickets WHERE id = ?',
        [id],
      );
      if (!row) return null;
      // The DELETE decides between two concurrent uses: only one removes the row.
      if ((await tx.execute('DELETE FROM notification_stream_tickets WHERE id = ?', [id])) !== 1) return null;
      const ticket = this.tickets.fromRow(row);
      return ticket.expiresAt.getTime() > now.getTime() ? ticket : null;
    });
  }
}

/** Unread rows leave their (status, type, unread) keys and arrive under (`read`, type, read). */
function countDeltas(rows: { status: string; notificationType: string }[]): CountDelta[] {
  const deltas = new Map<string, CountDelta>();
  const add = (status: string, notificationType: string, isRead: 0 | 1, delta: number) => {
    const key = `${status}\u0000${notificationType}\u0000${isRead}`;
    const entry = deltas.get(key) ?? { status, notificationType, isRead, delta: 0 };
    entry.delta += delta;
    deltas.set(key, entry);
  };
  for (const row of rows) {
    add(row.status, row.notificationType, 0, -1);
    add('read', row.notificationType, 1, 1);
  }
  return [...deltas.values()];
}

type UnreadByTypeRow = { notificationType: string | null; total: string | number };

function unreadCountOf(rows: UnreadByTypeRow[]): UnreadCount {
  const byType = Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, 0])) as Record<NotificationType, number>;
  for (const row of rows) {
    if (row.notificationType !== null && row.notificationType in byType) {
      byType[row.notificationType as NotificationType] = Number(row.total);
    }
  }
  return { unread: Object.values(byType).reduce((sum, value) => sum + value, 0), byType };
}
