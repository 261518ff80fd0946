import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, SqlRunner, type SqlTransaction } from '../../database/sql-runner.js';
import type { DomainEventType } from '../../events/domain-event.js';
import { OutboxEvent } from '../../events/entities/outbox-event.entity.js';
import { OUTBOX_COLUMNS } from '../../events/outbox.sql.js';
import { Notification } from '../entities/notification.entity.js';
import { NOTIFICATION_COLUMNS } from '../notifications.sql.js';
import type { Recipient } from './notification-channel.js';

const ROWS_PER_INSERT = 200;

/** The SQL of turning outbox events into notifications and of the e-mail queue. */
@Injectable()
export class DeliveryRepository {
  private readonly events: EntityRows<OutboxEvent>;
  private readonly notifications: EntityRows<Notification>;
  private readonly mysql: boolean;

  constructor(
    dataSource: DataSource,
    readonly sql: SqlRunner,
  ) {
    this.events = new EntityRows(dataSource, OutboxEvent);
    this.notifications = new EntityRows(dataSource, Notification);
    this.mysql = dataSource.options.type === 'mysql';
  }

  /** Up to `limit` undispatched events, oldest first: a plain read, no locks (the claim is per event). */
  async pendingEvents(limit: number): Promise<OutboxEvent[]> {
    const rows = await this.sql.select<Record<string, unknown>>(
      `SELECT ${OUTBOX_COLUMNS.join(', ')} FROM outbox_events WHERE dispatchedAt IS NULL ORDER BY createdAt LIMIT ?`,
      [limit],
    );
    return rows.map((row) => {
      const event = this.events.fromRow(row);
      if (typeof event.payload === 'string') event.payload = JSON.parse(event.payload) as Record<string, unknown>;
      return event;
    });
  }

  /**
   * Claims one event in the caller's transaction (which then inserts its notifications): on MySQL
   * the row is locked by primary key with SKIP LOCKED (an event another instance is dispatching is
   * skipped, not waited for, and no range or gap is locked, so writers of new events never wait);
   * on both databases the event is ours only if the conditional UPDATE of dispatchedAt changed it.
   */
  async claimEvent(tx: SqlTransaction, id: string, now: Date): Promise<boolean> {
    if (this.mysql) {
      const free = await tx.select(
        'SELECT id FROM outbox_events WHERE id = ? AND dispatchedAt IS NULL FOR UPDATE SKIP LOCKED',
        [id],
      );
      if (free.length === 0) return false;
    }
    const changed = await tx.execute(
      'UPDATE outbox_events SET dispatchedAt = ? WHERE id = ? AND dispatchedAt IS NULL',
      [this.events.toColumn('dispatchedAt', now), id],
    );
    return changed === 1;
  }

  /**
   * Marks events with nothing to insert (no recipient) dispatched: one conditional UPDATE for all
   * of them, atomic on its own (no lock or SELECT first): an event another instance marked or
   * claimed meanwhile is left as it is. One commit per batch instead of one per event.
   */
  async markDispatched(ids: string[], now: Date): Promise<void> {
    const at = this.events.toColumn('dispatchedAt', now);
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      await this.sql.transaction((tx) =>
        tx.execute(
          `UPDATE outbox_events SET dispatchedAt = ? WHERE id IN (${chunk.map(() => '?').join(', ')}) AND dispatchedAt IS NULL`,
          [at, ...chunk],
        ),
      );
    }
  }

  /** Active users among `ids`, as channels need them. */
  async activeUsers(ids: string[]): Promise<Recipient[]> {
    const found: Recipient[] = [];
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      const rows = await this.sql.select<{
        id: string;
        email: string;
        username: string;
        firstName: string;
        lastName: string;
      }>(
        `SELECT id, email, username, firstName, lastName FROM users
         WHERE isActive = ? AND id IN (${chunk.map(() => '?').join(', ')})`,
        [true, ...chunk],
      );
      for (const row of rows) {
        const name = `${row.firstName ?? ''} ${row.lastName ?? ''}`.trim();
        found.push({ id: row.id, email: row.email ?? '', displayName: name || row.username });
      }
    }
    return found;
  }

  /** Display name of any user (active or not), the username when no name is set. */
  async displayName(id: string): Promise<string | null> {
    const [row] = await this.sql.select<{ username: string; firstName: string; lastName: string }>(
      'SELECT username, firstName, lastName FROM users WHERE id = ?',
      [id],
    );
    if (!row) return null;
    return `${row.firstName ?? ''} ${row.lastName ?? ''}`.trim() || row.username;
  }

  async documentTitle(id: string): Promise<string | null> {
    const [row] = await this.sql.select<{ title: string }>('SELECT title FROM documents WHERE id = ?', [id]);
    return row?.title ?? null;
  }

  async projectName(id: string): Promise<string | null> {
    const [row] = await this.sql.select<{ name: string }>('SELECT name FROM projects WHERE id = ?', [id]);
    return row?.name ?? null;
  }

  /** Stored choices for one event type among the given users. */
  async preferences(
    event: DomainEventType,
    userIds: string[],
  ): Promise<Map<string, { inApp: boolean; email: boolean }>> {
    const choices = new Map<string, { inApp: boolean; email: boolean }>();
    for (let start = 0; start < userIds.length; start += 500) {
      const chunk = userIds.slice(start, start + 500);
      const rows = await this.sql.select<{ userId: string; inApp: unknown; email: unknown }>(
        `SELECT userId, inApp, email FROM notification_preferences
         WHERE event = ? AND userId IN (${chunk.map(() => '?').join(', ')})`,
        [event, ...chunk],
      );
      for (const row of rows) choices.set(row.userId, { inApp: Boolean(row.inApp), email: Boolean(row.email) });
    }
    return choices;
  }

  /** A new notification row (not yet stored). */
  newNotification(fields: Omit<Notification, 'id' | 'readAt' | 'attempts'>): Notification {
    return Object.assign(new Notification(), { id: randomUUID(), readAt: null, attempts: 0, ...fields });
  }

  /**
   * Inserts the rows, skipping any whose (sourceEventId, userId, notificationType) exists already
   * (the unique index: never a second notification for one event, recipient and channel). Answers
   * how many were inserted.
   */
  async insertNotifications(tx: SqlTransaction, rows: Notification[]): Promise<number> {
    let inserted = 0;
    const columns = NOTIFICATION_COLUMNS.join(', ');
    const placeholders = `(${NOTIFICATION_COLUMNS.map(() => '?').join(', ')})`;
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      const values = chunk.flatMap((row) =>
        NOTIFICATION_COLUMNS.map((column) => this.notifications.toColumn(column, row[column])),
      );
      const sql = this.mysql
        ? `INSERT IGNORE INTO notifications (${columns}) VALUES ${chunk.map(() => placeholders).join(', ')}`
        : `INSERT INTO notifications (${columns}) VALUES ${chunk.map(() => placeholders).join(', ')}
           ON CONFLICT (sourceEventId, userId, notificationType) DO NOTHING`;
      inserted += await tx.execute(sql, values);
    }
    return inserted;
  }

  async notificationsOfEvent(eventId: string): Promise<Notification[]> {
    const rows = await this.sql.select<Record<string, unknown>>(
      `SELECT ${NOTIFICATION_COLUMNS.join(', ')} FROM notifications WHERE sourceEventId = ?`,
      [eventId],
    );
    return rows.map((row) => this.notifications.fromRow(row));
  }

  /**
   * Claims up to `limit` e-mails due by `now`: each is ours only if the conditional UPDATE moved
   * its nextAttemptAt to the lease end (MySQL also skips rows another instance has locked), and
   * counts the attempt. A worker that dies mid-send leaves the row to be retried after the lease.
   */
  async claimDueEmails(limit: number, now: Date, leaseUntil: Date): Promise<Notification[]> {
    // Candidates by a plain read; each is then claimed by primary key (no range locks).
    const due = await this.sql.select<{ id: string; nextAttemptAt: unknown }>(
      'SELECT id, nextAttemptAt FROM notifications WHERE nextAttemptAt <= ? ORDER BY nextAttemptAt LIMIT ?',
      [this.notifications.toColumn('nextAttemptAt', now), limit],
    );
    if (due.length === 0) return [];
    const ids = await this.sql.transaction(async (tx) => {
      const lease = this.notifications.toColumn('nextAttemptAt', leaseUntil);
      const claimed: string[] = [];
      for (const row of due) {
        if (this.mysql) {
          const free = await tx.select('SELECT id FROM notifications WHERE id = ? FOR UPDATE SKIP LOCKED', [row.id]);
          if (free.length === 0) continue;
        }
        const changed = await tx.execute(
          'UPDATE notifications SET nextAttemptAt = ?, attempts = attempts + 1 WHERE id = ? AND nextAttemptAt = ?',
          [lease, row.id, row.nextAttemptAt],
        );
        if (changed === 1) claimed.push(row.id);
      }
      return claimed;
    });
    if (ids.length === 0) return [];
    const rows = await this.sql.select<Record<string, unknown>>(
      `SELECT ${NOTIFICATION_COLUMNS.join(', ')} FROM notifications WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    return rows.map((row) => this.notifications.fromRow(row));
  }

  /** Sent or failed for good: delivery status set, `status` too unless the user has read it. */
  async finishDelivery(id: string, outcome: 'sent' | 'failed'): Promise<void> {
    await this.sql.transaction((tx) =>
      tx.execute(
        `UPDATE notifications SET deliveryStatus = ?, status = CASE WHEN status = 'read' THEN 'read' ELSE ? END,
         nextAttemptAt = NULL WHERE id = ?`,
        [outcome, outcome, id],
      ),
    );
  }

  async retryAt(id: string, at: Date): Promise<void> {
    await this.sql.transaction((tx) =>
      tx.execute('UPDATE notifications SET nextAttemptAt = ? WHERE id = ?', [
        this.notifications.toColumn('nextAttemptAt', at),
        id,
      ]),
    );
  }
}
