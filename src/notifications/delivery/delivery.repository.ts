import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, LessThanOrEqual, type Repository } from 'typeorm';
import { appendOnlyId } from '../../common/ids/append-only-id.js';
import { insertStatement } from '../../database/raw-rows.js';
import type { Tx } from '../../database/transactions.js';
import type { DomainEventType } from '../../events/domain-event.js';
import { OutboxEvent } from '../../events/entities/outbox-event.entity.js';
import { User } from '../../users/entities/user.entity.js';
import { NotificationPreference } from '../entities/notification-preference.entity.js';
import { Notification } from '../entities/notification.entity.js';
import { storedChoice, type ChannelChoice } from '../notification-preferences.js';
import { DIGEST_MODES, type AttentionSettings } from './delivery-timing.js';
import type { Recipient } from './notification-channel.js';

/** Rows per INSERT: 500 × 15 columns stays far under either database's parameter limit. */
const ROWS_PER_INSERT = 500;
/** Ids per IN list (well under either database's parameter limit). */
const IN_CHUNK = 2000;

/** An e-mail due to be sent, as its claim needs it. */
export type DueEmail = Pick<Notification, 'id' | 'nextAttemptAt' | 'userId' | 'deliveryMode'>;

/**
 * The statements of turning outbox events into notifications and of the e-mail queue. Writes take
 * the Tx of the caller's Transactions.run; claims are conditional UPDATEs by primary key.
 */
@Injectable()
export class DeliveryRepository {
  private readonly events: Repository<OutboxEvent>;
  private readonly notifications: Repository<Notification>;
  private readonly mysql: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.events = dataSource.getRepository(OutboxEvent);
    this.notifications = dataSource.getRepository(Notification);
    this.mysql = dataSource.options.type === 'mysql';
  }

  /** Up to `limit` undispatched events, oldest first: a plain read, no locks (the claim is per event). */
  pendingEvents(limit: number): Promise<OutboxEvent[]> {
    return this.events.find({ where: { dispatchedAt: IsNull() }, order: { createdAt: 'ASC' }, take: limit });
  }

  /**
   * Claims one event in the caller's transaction (which then inserts its notifications): on MySQL
   * the row is locked by primary key with SKIP LOCKED (an event another instance is dispatching is
   * skipped, not waited for); on both databases the event is ours only if the conditional UPDATE
   * of dispatchedAt changed it.
   */
  async claimEvent(tx: Tx, id: string, now: Date): Promise<boolean> {
    if (this.mysql) {
      const free = await tx
        .createQueryBuilder(OutboxEvent, 'e')
        .select('e.id')
        .where('e.id = :id AND e.dispatchedAt IS NULL', { id })
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getRawMany();
      if (free.length === 0) return false;
    }
    const result = await tx.update(OutboxEvent, { id, dispatchedAt: IsNull() }, { dispatchedAt: now });
    return result.affected === 1;
  }

  /**
   * Marks events with nothing to insert (no recipient) dispatched: one conditional UPDATE per
   * chunk, in the caller's transaction; an event another instance marked or claimed meanwhile is
   * left as it is.
   */
  async markDispatched(tx: Tx, ids: string[], now: Date): Promise<void> {
    for (let start = 0; start < ids.length; start += IN_CHUNK) {
      const chunk = ids.slice(start, start + IN_CHUNK);
      await tx.update(OutboxEvent, { id: In(chunk), dispatchedAt: IsNull() }, { dispatchedAt: now });
    }
  }

  /** Active users among `ids`, as channels need them. */
  async activeUsers(ids: string[]): Promise<Recipient[]> {
    const found: Recipient[] = [];
    for (let start = 0; start < ids.length; start += IN_CHUNK) {
      const users = await this.dataSource.getRepository(User).find({
        select: { id: true, email: true, username: true, firstName: true, lastName: true, timezone: true },
        where: { isActive: true, id: In(ids.slice(start, start + IN_CHUNK)) },
      });
      for (const user of users) {
        found.push({ id: user.id, email: user.email ?? '', displayName: displayNameOf(user), timezone: user.timezone });
      }
    }
    return found;
  }

  /** Display name of any user (active or not), the username when no name is set. */
  async displayName(id: string): Promise<string | null> {
    const user = await this.dataSource.getRepository(User).findOne({
      select: { username: true, firstName: true, lastName: true },
      where: { id },
    });
    return user ? displayNameOf(user) : null;
  }

  async documentTitle(id: string): Promise<string | null> {
    const row = await this.dataSource
      .createQueryBuilder()
      .select('d.title', 'title')
      .from('documents', 'd')
      .where('d.id = :id', { id })
      .getRawOne<{ title: string }>();
    return row?.title ?? null;
  }

  async projectName(id: string): Promise<string | null> {
    const row = await this.dataSource
      .createQueryBuilder()
      .select('p.name', 'name')
      .from('projects', 'p')
      .where('p.id = :id', { id })
      .getRawOne<{ name: string }>();
    return row?.name ?? null;
  }

  /** Stored choices for one event type among the given users. */
  async preferences(event: DomainEventType, userIds: string[]): Promise<Map<string, ChannelChoice>> {
    const choices = new Map<string, ChannelChoice>();
    for (let start = 0; start < userIds.length; start += IN_CHUNK) {
      const rows = await this.dataSource
        .getRepository(NotificationPreference)
        .findBy({ event, userId: In(userIds.slice(start, start + IN_CHUNK)) });
      for (const row of rows) choices.set(row.userId, storedChoice(row));
    }
    return choices;
  }

  /** A new notification row (not yet stored). */
  newNotification(fields: Omit<Notification, 'id' | 'readAt' | 'attempts'>): Notification {
    return Object.assign(new Notification(), { id: appendOnlyId(), readAt: null, attempts: 0, ...fields });
  }

  /**
   * Inserts the rows, skipping any whose (sourceEventId, userId, notificationType) exists already
   * (the unique index: never a second notification for one event, recipient and channel), one
   * multi-row statement per ROWS_PER_INSERT, as text (insertStatement). Answers how many were inserted.
   */
  async insertNotifications(tx: Tx, rows: Notification[]): Promise<number> {
    let inserted = 0;
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const [sql, parameters] = insertStatement(tx, Notification, rows.slice(start, start + ROWS_PER_INSERT), {
        ignoreDuplicates: true,
      });
      // Run as text to read the rows inserted.
      const result = await tx.queryRunner!.query(sql, parameters, true);
      inserted += result.affected ?? 0;
    }
    return inserted;
  }

  notificationsOfEvent(eventId: string): Promise<Notification[]> {
    return this.notifications.findBy({ sourceEventId: eventId });
  }

  /** Up to `limit` e-mails due by `now`, by a plain read (no locks): the candidates of a claim. */
  dueEmails(limit: number, now: Date): Promise<DueEmail[]> {
    return this.notifications.find({
      select: { id: true, nextAttemptAt: true, userId: true, deliveryMode: true },
      where: { nextAttemptAt: LessThanOrEqual(now) },
      order: { nextAttemptAt: 'ASC' },
      take: limit,
    });
  }

  /**
   * Claims the due e-mails in the caller's transaction: each is ours only if the conditional UPDATE
   * by primary key moved its nextAttemptAt to the lease end (MySQL also skips rows another
   * instance has locked), and counts the attempt. Answers the ids claimed.
   */
  async claimEmails(tx: Tx, due: Pick<Notification, 'id' | 'nextAttemptAt'>[], leaseUntil: Date): Promise<string[]> {
    const claimed: string[] = [];
    for (const row of due) {
      if (this.mysql) {
        const free = await tx
          .createQueryBuilder(Notification, 'n')
          .select('n.id')
          .where('n.id = :id', { id: row.id })
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          .getRawMany();
        if (free.length === 0) continue;
      }
      const result = await tx
        .createQueryBuilder()
        .update(Notification)
        .set({ nextAttemptAt: leaseUntil, attempts: () => 'attempts + 1' })
        .where('id = :id AND nextAttemptAt = :due', { id: row.id, due: row.nextAttemptAt })
        .execute();
      if (result.affected === 1) claimed.push(row.id);
    }
    return claimed;
  }

  /**
   * Claims all of the user's digest e-mails due by `now` in the caller's transaction, or none: on
   * MySQL the read waits for another instance's claim of them and then finds them leased (callers
   * take users in one order, so two claims never wait on each other). Answers the ids claimed.
   */
  async claimDigest(tx: Tx, userId: string, now: Date, leaseUntil: Date): Promise<string[]> {
    const query = tx
      .createQueryBuilder(Notification, 'n')
      .select('n.id', 'id')
      .where('n.userId = :userId AND n.notificationType = :email', { userId, email: 'email' })
      .andWhere('n.deliveryMode IN (:...modes) AND n.nextAttemptAt <= :now', { modes: DIGEST_MODES, now });
    if (this.mysql) query.setLock('pessimistic_write');
    const ids = (await query.getRawMany<{ id: string }>()).map((row) => row.id);
    if (ids.length === 0) return [];
    await tx
      .createQueryBuilder()
      .update(Notification)
      .set({ nextAttemptAt: leaseUntil, attempts: () => 'attempts + 1' })
      .where({ id: In(ids) })
      .execute();
    return ids;
  }

  notificationsById(ids: string[]): Promise<Notification[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.notifications.findBy({ id: In(ids) });
  }

  /** Sent or failed for good: delivery status set, `status` too unless the user has read it. */
  async finishDelivery(tx: Tx, id: string, outcome: 'sent' | 'failed'): Promise<void> {
    await tx
      .createQueryBuilder()
      .update(Notification)
      .set({
        deliveryStatus: outcome,
        status: () => "CASE WHEN status = 'read' THEN 'read' ELSE :outcome END",
        nextAttemptAt: null,
      })
      .where('id = :id', { id })
      .setParameter('outcome', outcome)
      .execute();
  }

  async retryAt(tx: Tx, id: string, at: Date): Promise<void> {
    await tx.update(Notification, { id }, { nextAttemptAt: at });
  }

  /** Puts a claimed e-mail back until `at` (quiet hours, snooze) without counting the claim as an attempt. */
  async postpone(tx: Tx, id: string, at: Date): Promise<void> {
    await tx
      .createQueryBuilder()
      .update(Notification)
      .set({ nextAttemptAt: at, attempts: () => 'attempts - 1' })
      .where('id = :id', { id })
      .execute();
  }

  /** Removes an e-mail that is no longer to be sent (if_unread, read in time): it never happened. */
  async cancelEmail(tx: Tx, id: string): Promise<void> {
    await tx.delete(Notification, { id, notificationType: 'email' });
  }

  /** Whether the in-app notification made from the same event for the same user has been read. */
  async inAppRead(email: Pick<Notification, 'sourceEventId' | 'userId'>): Promise<boolean> {
    if (!email.sourceEventId) return false;
    const row = await this.notifications.findOne({
      select: { id: true, readAt: true },
      where: { sourceEventId: email.sourceEventId, userId: email.userId, notificationType: 'in_app' },
    });
    return row?.readAt != null;
  }

  /** The attention settings (time zone, quiet hours, urgent bypass, snooze) of the given users. */
  async attentionSettings(userIds: string[]): Promise<Map<string, AttentionSettings>> {
    const settings = new Map<string, AttentionSettings>();
    for (let start = 0; start < userIds.length; start += IN_CHUNK) {
      const users = await this.dataSource.getRepository(User).find({
        select: {
          id: true,
          timezone: true,
          quietHoursStart: true,
          quietHoursEnd: true,
          urgentBypass: true,
          snoozedUntil: true,
        },
        where: { id: In(userIds.slice(start, start + IN_CHUNK)) },
      });
      for (const { id, ...rest } of users) settings.set(id, rest);
    }
    return settings;
  }
}

function displayNameOf(user: Pick<User, 'username' | 'firstName' | 'lastName'>): string {
  return `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim() || user.username;
}
