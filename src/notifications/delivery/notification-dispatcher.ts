import { setImmediate } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Clock } from '../../common/time/clock.js';
import { notificationsConfig } from '../../config/configuration.js';
import { Transactions } from '../../database/transactions.js';
import { DocumentParticipants } from '../../documents/document-participants.service.js';
import { BatchReads } from '../../events/batch-reads.js';
import type { OutboxEvent } from '../../events/entities/outbox-event.entity.js';
import { OUTBOX_NUDGE_DELAY_MS, onOutboxWrite } from '../../events/outbox-signal.js';
import { ProjectMembership } from '../../projects/project-membership.service.js';
import { WatchesRepository } from '../../watches/watches.repository.js';
import { NotificationDto } from '../dto/notification-list-response.dto.js';
import type { Notification } from '../entities/notification.entity.js';
import { defaultChoice } from '../notification-preferences.js';
import { notificationText } from '../notification-texts.js';
import { NotificationHub } from '../stream/notification-hub.js';
import { DeliveryRepository } from './delivery.repository.js';
import { Poller } from '../../common/time/poller.js';
import { firstDue } from './delivery-timing.js';
import { NOTIFICATION_CHANNELS, type NotificationChannel, type Recipient } from './notification-channel.js';
import { recipientsOf, type RecipientSources } from './recipient-rule.js';

/** Events per transaction. */
const BATCH_SIZE = 50;
/** Polling keeps other instances' events within the 1 s target; this instance's own are nudged at once. */
export const DISPATCH_POLL_MS = 250;

/**
 * Turns outbox events into notifications, exactly once per (event, recipient, channel): one
 * transaction per event claims it (SKIP LOCKED on MySQL, a conditional UPDATE on both), inserts its
 * notifications and marks it dispatched, so a process killed mid-batch commits no half event, and
 * the next run (here or on another instance) does the rest. The unique index on (sourceEventId, userId,
 * notificationType) refuses a second row should an event ever be dispatched twice.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('NotificationDispatcher');
  private readonly poller = new Poller(DISPATCH_POLL_MS, () => this.dispatchBatch(), this.logger);
  private stopListening: (() => void) | undefined;
  /** Called after a batch committed e-mail notifications (the e-mail worker's nudge). */
  onEmailsQueued: (() => void) | undefined;

  constructor(
    private readonly delivery: DeliveryRepository,
    private readonly transactions: Transactions,
    private readonly members: ProjectMembership,
    private readonly participants: DocumentParticipants,
    private readonly watches: WatchesRepository,
    private readonly hub: NotificationHub,
    private readonly clock: Clock,
    @Inject(notificationsConfig.KEY) private readonly config: ConfigType<typeof notificationsConfig>,
    @Inject(NOTIFICATION_CHANNELS) private readonly channels: NotificationChannel[],
  ) {}

  onApplicationBootstrap(): void {
    this.stopListening = onOutboxWrite(() => this.poller.wake(OUTBOX_NUDGE_DELAY_MS));
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopListening?.();
    await this.poller.stop();
  }

  /**
   * One batch; answers whether a full batch was found (more may be waiting). Each event is claimed
   * and its notifications inserted in one transaction of its own, after its recipients and texts
   * were read outside it: the transaction holds its locks only for the writes. Events without
   * recipients are only marked dispatched, together at the end of the batch (a batch that fails
   * before leaves them to the next one, which finds them again: nothing to insert, nothing lost).
   */
  async dispatchBatch(): Promise<boolean> {
    const events = await this.delivery.pendingEvents(BATCH_SIZE);
    // Events nobody is to hear of (e.g. the only participant made the change), marked together.
    const unheard: string[] = [];
    const reads = new BatchReads();
    try {
      for (const event of events) {
        // Requests first: on SQLite every statement runs on the event loop that serves them.
        await setImmediate();
        const now = this.clock.now();
        const rows = await this.notificationsFor(event, now, reads);
        if (rows.length === 0) {
          unheard.push(event.id);
          continue;
        }
        // Read committed: the claim locks the event's row and no gap, so writers of new events never wait.
        const stored = await this.transactions.run(
          async (tx) => {
            if (!(await this.delivery.claimEvent(tx, event.id, now))) return [];
            const inserted = await this.delivery.insertNotifications(tx, rows);
            if (inserted !== rows.length) {
              // Some existed (the unique index held): which rows are new is unknown, so none is published.
              this.logger.warn(`event ${event.id} was dispatched before; kept the existing notifications`);
              return [];
            }
            return rows;
          },
          { readCommitted: true },
        );
        for (const notification of stored) {
          this.hub.publish({
            kind: 'notification',
            userId: notification.userId,
            notification: NotificationDto.from(notification),
          });
        }
        if (stored.some((notification) => notification.status === 'pending')) this.onEmailsQueued?.();
      }
    } finally {
      // Also when a later event failed: what was decided before it stays decided.
      if (unheard.length) {
        const at = this.clock.now();
        await this.transactions.run((tx) => this.delivery.markDispatched(tx, unheard, at), { readCommitted: true });
      }
    }
    return events.length === BATCH_SIZE;
  }

  /** The active recipients of the event by the recipient rule (recipient-rule.ts), as channels need them. */
  private async recipients(event: OutboxEvent, reads: BatchReads): Promise<Recipient[]> {
    const active = new Map<string, Recipient>();
    const sources: RecipientSources = {
      participants: (documentId) => this.participants.of(documentId),
      documentWatchers: (documentId) => this.watches.documentWatchers(documentId),
      documentMuters: (documentId) => this.watches.documentMuters(documentId),
      projectWatchers: (projectId) => this.watches.projectWatchers(projectId),
      projectMembers: (projectId) => this.members.memberIds(projectId),
      readersAmong: (documentId, userIds) => this.participants.readersAmong(documentId, userIds),
      activeAmong: async (userIds) => {
        const users = await reads.once(`active:${userIds.join()}`, () => this.delivery.activeUsers(userIds));
        for (const user of users) active.set(user.id, user);
        return [...active.keys()];
      },
    };
    const ids = await recipientsOf(event, sources);
    return ids.map((id) => active.get(id)!);
  }

  private async notificationsFor(event: OutboxEvent, now: Date, reads: BatchReads): Promise<Notification[]> {
    const recipients = await this.recipients(event, reads);
    if (recipients.length === 0) return [];
    const ids = recipients.map((recipient) => recipient.id);
    const stored = await reads.once(`preferences:${event.type}:${ids.join()}`, () =>
      this.delivery.preferences(event.type, ids),
    );
    const choices = recipients.map((recipient) => stored.get(recipient.id) ?? defaultChoice(event.type));
    const channelsOf = recipients.map((recipient, index) =>
      this.channels.filter((channel) => channel.configured && channel.wanted(choices[index], recipient)),
    );
    // Texts are read only for an event someone will hear of (e.g. share.accessed is off by default).
    if (channelsOf.every((channels) => channels.length === 0)) return [];
    const [actorName, documentTitle, projectName] = await Promise.all([
      this.delivery.displayName(event.actorId),
      event.documentId ? this.delivery.documentTitle(event.documentId) : null,
      event.projectId ? this.delivery.projectName(event.projectId) : null,
    ]);
    const { subject, message } = notificationText({
      type: event.type,
      actorName: actorName ?? 'Someone',
      documentTitle,
      projectName,
      payload: event.payload ?? {},
    });
    const rows: Notification[] = [];
    for (const [index, recipient] of recipients.entries()) {
      const choice = choices[index];
      for (const channel of channelsOf[index]) {
        const mode = choice.email.mode === 'off' ? 'immediate' : choice.email.mode;
        // Delivered channels (e-mail) are rows with a due time: the worker sends them then.
        rows.push(
          this.delivery.newNotification({
            userId: recipient.id,
            subject,
            message,
            notificationType: channel.type,
            status: channel.initialStatus,
            deliveryStatus: channel.initialStatus,
            createdAt: now,
            event: event.type,
            documentId: event.documentId,
            sourceEventId: event.id,
            deliveryMode: channel.deliver ? mode : null,
            nextAttemptAt: channel.deliver
              ? firstDue(mode, choice.email.delayMinutes, now, recipient.timezone, this.config.dailyDigestHour)
              : null,
          }),
        );
      }
    }
    return rows;
  }
}
