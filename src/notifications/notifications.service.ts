import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiError } from '../common/errors/error-codes.js';
import { httpConfig } from '../config/configuration.js';
import type { DomainEventType } from '../events/domain-event.js';
import type { ListNotificationsQueryDto } from './dto/list-notifications-query.dto.js';
import type { ReadAllDto } from './dto/inbox.dto.js';
import type { Notification } from './entities/notification.entity.js';
import { decodeCursor, type NotificationCursor } from './notification-cursor.js';
import { preferenceSet, type ChannelChoice, type PreferenceSet } from './notification-preferences.js';
import { NotificationDto } from './dto/notification-list-response.dto.js';
import { NotificationsRepository, type UnreadCount } from './notifications.repository.js';
import { NotificationHub } from './stream/notification-hub.js';
import { decodeThreadCursor, encodeThreadCursor } from './thread-cursor.js';
import type { ThreadDto } from './dto/threads.dto.js';
import { Clock } from '../common/time/clock.js';
import { UsersService } from '../users/users.service.js';

/** Rows per read-all transaction: long enough to amortize its round trips, short enough that row locks are brief. */
export const READ_ALL_CHUNK = 5000;

/** `complete: false` (only then present): stopped at the time budget; calling again does the rest. */
export interface ReadAllResult {
  updated: number;
  complete?: false;
}

export interface NotificationPage {
  notifications: NotificationDto[];
  total: number;
  /** Position after the last item, when more items follow. */
  next: NotificationCursor | null;
}

export interface ThreadPage {
  threads: ThreadDto[];
  nextCursor: string | null;
}

const MAX_SNOOZE_MS = 366 * 24 * 3600 * 1000;

/** Stream tickets live at most this long. */
export const STREAM_TICKET_SECONDS = 60;

export const ticketId = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

@Injectable()
export class NotificationsService {
  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly hub: NotificationHub,
    private readonly users: UsersService,
    private readonly clock: Clock,
    @Inject(httpConfig.KEY) private readonly http: ConfigType<typeof httpConfig>,
  ) {}

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
    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    // One row more than the page tells whether anything follows, without another query.
    const { rows, total } = await this.notifications.page(userId, query, query.limit + 1, offset, after);
    const notifications = rows.slice(0, query.limit);
    const last = notifications.at(-1);
    const next = rows.length > query.limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { notifications: notifications.map((row) => NotificationDto.from(row)), total, next };
  }

  /** Another user's notification is not found, like one that does not exist. */
  async get(userId: string, id: string): Promise<Notification> {
    const notification = await this.notifications.findOwn(userId, id);
    if (!notification) throw notFound(id);
    return notification;
  }

  async setRead(userId: string, id: string, read: boolean): Promise<Notification> {
    if (await this.notifications.setRead(userId, id, read, new Date())) this.hub.publish({ kind: 'count', userId });
    return this.get(userId, id);
  }

  /**
   * Notifications created after `requestStart` stay unread whatever `before` says. Works in chunks
   * of READ_ALL_CHUNK rows, each committed on its own, and starts no chunk after half the request
   * deadline: a huge inbox is answered `complete: false` in time (what was done stays done; calling
   * again goes on with the rest) instead of a 503 while the work goes on unseen.
   */
  async readAll(
    userId: string,
    filters: ReadAllDto & { documentId?: string },
    requestStart: Date,
  ): Promise<ReadAllResult> {
    const before = filters.before
      ? new Date(Math.min(Date.parse(filters.before), requestStart.getTime()))
      : requestStart;
    const stopAt = requestStart.getTime() + this.http.requestTimeoutMs / 2;
    const at = new Date();
    let updated = 0;
    let complete = false;
    try {
      do {
        const changed = await this.notifications.readAllChunk(
          userId,
          { type: filters.type, status: filters.status, documentId: filters.documentId },
          before,
          at,
          READ_ALL_CHUNK,
        );
        updated += changed;
        complete = changed < READ_ALL_CHUNK;
      } while (!complete && Date.now() < stopAt);
    } finally {
      // Committed chunks count even when a later one fails.
      if (updated > 0) this.hub.publish({ kind: 'count', userId });
    }
    return complete ? { updated } : { updated, complete };
  }

  /**
   * One page of the user's threads, newest first: per document (or non-document source) its
   * newest in-app notification, the document's current title, and exact unread and total counts.
   */
  async threads(userId: string, limit: number, cursor?: string): Promise<ThreadPage> {
    const after = cursor === undefined ? undefined : decodeThreadCursor(cursor);
    const rows = await this.notifications.threads(userId, limit + 1, after);
    const page = rows.slice(0, limit);
    const titles = await this.notifications.documentTitles(page.map((row) => row.documentId).filter(Boolean));
    const threads: ThreadDto[] = [];
    for (const row of page) {
      const newest = await this.notifications.newestOfThread(userId, row);
      if (!newest) continue; // Deleted since the page was read: the next page request shows the truth.
      threads.push({
        documentId: row.documentId || null,
        source: row.documentId ? 'document' : row.source,
        title: (row.documentId ? titles.get(row.documentId) : undefined) ?? newest.subject,
        newest: NotificationDto.from(newest),
        unread: row.unread,
        total: row.total,
      });
    }
    const last = page.at(-1);
    return { threads, nextCursor: rows.length > limit && last ? encodeThreadCursor(last) : null };
  }

  /** Marks every notification of the user about the document read (all channels), as read-all does. */
  readThread(userId: string, documentId: string): Promise<ReadAllResult> {
    return this.readAll(userId, { documentId }, this.clock.now());
  }

  /** E-mails wait until `until` (in-app notifications still arrive); answers the settings' value. */
  async snooze(userId: string, until: Date): Promise<{ snoozedUntil: string }> {
    const now = this.clock.now().getTime();
    if (until.getTime() <= now || until.getTime() > now + MAX_SNOOZE_MS) {
      throw new ApiError('validation_failed', 'until must be in the future and at most 366 days ahead');
    }
    await this.users.snooze(userId, until);
    return { snoozedUntil: until.toISOString() };
  }

  unsnooze(userId: string): Promise<void> {
    return this.users.snooze(userId, null);
  }

  unreadCount(userId: string): Promise<UnreadCount> {
    return this.notifications.unreadCount(userId);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await this.notifications.deleteOwn(userId, id))) throw notFound(id);
    this.hub.publish({ kind: 'count', userId });
  }

  async preferences(userId: string): Promise<PreferenceSet> {
    return preferenceSet(await this.notifications.storedPreferences(userId));
  }

  async updatePreferences(
    userId: string,
    choices: Partial<Record<DomainEventType, ChannelChoice>>,
  ): Promise<PreferenceSet> {
    await this.notifications.savePreferences(userId, choices);
    return this.preferences(userId);
  }

  /** A single-use stream ticket bound to the caller's token (its version and expiry). */
  async createStreamTicket(
    userId: string,
    token: { version: number; expiresAt: Date },
  ): Promise<{ ticket: string; expiresIn: number }> {
    const now = new Date();
    const expiresIn = Math.max(
      1,
      Math.min(STREAM_TICKET_SECONDS, Math.floor((token.expiresAt.getTime() - now.getTime()) / 1000)),
    );
    const ticket = randomBytes(32).toString('base64url');
    await this.notifications.createTicket({
      id: ticketId(ticket),
      userId,
      tokenVersion: token.version,
      tokenExpiresAt: token.expiresAt,
      expiresAt: new Date(now.getTime() + expiresIn * 1000),
    });
    // Outside the insert's transaction, by primary key: no gap lock for concurrent inserts to meet.
    await this.notifications.deleteExpiredTickets(now);
    return { ticket, expiresIn };
  }
}

function notFound(id: string): ApiError {
  return new ApiError('notification_not_found', `You have no notification with the id ${id}.`);
}
