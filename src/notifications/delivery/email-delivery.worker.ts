import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import pLimit from 'p-limit';
import { Clock } from '../../common/time/clock.js';
import { notificationsConfig } from '../../config/configuration.js';
import { Transactions } from '../../database/transactions.js';
import type { Notification } from '../entities/notification.entity.js';
import { NotificationHub } from '../stream/notification-hub.js';
import { DeliveryRepository, type DueEmail } from './delivery.repository.js';
import { EmailChannel } from './email.channel.js';
import { DIGEST_MODES, heldUntil } from './delivery-timing.js';
import { PermanentDeliveryError, type OutgoingNotification } from './notification-channel.js';
import { NotificationDispatcher } from './notification-dispatcher.js';
import { Poller } from '../../common/time/poller.js';

const POLL_MS = 1_000;
const BATCH_SIZE = 50;
const PARALLEL_SENDS = 10;
/** One e-mail to send: a row of its own, or a user's digest rows. */
interface Message {
  userId: string;
  rows: Notification[];
  content: OutgoingNotification;
}

const isDigest = (row: Pick<Notification, 'deliveryMode'>) =>
  (DIGEST_MODES as (string | null)[]).includes(row.deliveryMode);

/** How long a claimed e-mail is ours: longer than any send (nodemailer times out sooner). */
const LEASE_MS = 120_000;

/**
 * Sends `pending` e-mail notifications when SMTP_URL is set: claims due rows (see claim, so two
 * instances never send one e-mail twice), sends them through the pooled transport, and records
 * `sent`; a temporary failure (connection refused, 4xx) is retried after
 * NOTIFY_RETRY_BASE_SECONDS, doubling each time, until NOTIFY_MAX_ATTEMPTS
 * attempts in all, then `failed`; a 5xx rejection fails at once. An SMTP outage only delays.
 * Timing (delivery-timing.ts) is in each row's due time and decided again when it is due: quiet
 * hours and snooze put it back, a read in-app notification cancels an if_unread e-mail, and a
 * user's due digest rows go out as one e-mail.
 */
@Injectable()
export class EmailDeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EmailDelivery');
  private readonly poller = new Poller(POLL_MS, () => this.deliverBatch(), this.logger);
  private readonly limit = pLimit(PARALLEL_SENDS);

  constructor(
    private readonly delivery: DeliveryRepository,
    private readonly transactions: Transactions,
    private readonly email: EmailChannel,
    private readonly hub: NotificationHub,
    private readonly clock: Clock,
    dispatcher: NotificationDispatcher,
    @Inject(notificationsConfig.KEY) private readonly config: ConfigType<typeof notificationsConfig>,
  ) {
    dispatcher.onEmailsQueued = () => this.poller.wake();
  }

  onApplicationBootstrap(): void {
    if (this.email.configured) this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
  }

  async deliverBatch(): Promise<boolean> {
    const now = this.clock.now();
    const due = await this.delivery.dueEmails(BATCH_SIZE, now);
    if (due.length === 0) return false;
    const rows = await this.claim(due, now, new Date(now.getTime() + LEASE_MS));
    const messages = await this.messagesOf(rows, now);
    await Promise.all(messages.map((message) => this.limit(() => this.deliverOne(message))));
    return due.length === BATCH_SIZE;
  }

  /**
   * Claims the candidates in one transaction (see DeliveryRepository), so two instances never send
   * one e-mail twice: a row of its own by its key, a digest row with all of its user's due digest
   * rows, so a digest is never split between two instances. A worker that dies mid-send leaves
   * the rows to be retried after the lease.
   */
  private async claim(due: DueEmail[], now: Date, leaseUntil: Date): Promise<Notification[]> {
    const digestUsers = [...new Set(due.filter(isDigest).map((row) => row.userId))].sort();
    const single = due.filter((row) => !isDigest(row));
    const ids = await this.transactions.run(
      async (tx) => {
        // Digests first: their reads may wait; the single rows' claims skip locked rows and never do.
        const claimed: string[] = [];
        for (const userId of digestUsers)
          claimed.push(...(await this.delivery.claimDigest(tx, userId, now, leaseUntil)));
        return [...claimed, ...(await this.delivery.claimEmails(tx, single, leaseUntil))];
      },
      { readCommitted: true },
    );
    return this.delivery.notificationsById(ids);
  }

  /**
   * What to send of the claimed rows: rows due in the user's quiet hours or snooze are put back
   * until they end (urgent events pass, see heldUntil); if_unread rows whose in-app notification
   * was read are cancelled; each user's digest rows make one message, every other row its own.
   */
  private async messagesOf(rows: Notification[], now: Date): Promise<Message[]> {
    const settings = await this.delivery.attentionSettings([...new Set(rows.map((row) => row.userId))]);
    const messages: Message[] = [];
    const digests = new Map<string, Notification[]>();
    for (const row of rows) {
      const userSettings = settings.get(row.userId);
      const held = userSettings ? heldUntil(now, userSettings, row.event) : null;
      if (held) {
        await this.transactions.run((tx) => this.delivery.postpone(tx, row.id, held));
      } else if (row.deliveryMode === 'if_unread' && (await this.delivery.inAppRead(row))) {
        await this.transactions.run((tx) => this.delivery.cancelEmail(tx, row.id));
        this.hub.publish({ kind: 'count', userId: row.userId });
      } else if (isDigest(row)) {
        digests.set(row.userId, [...(digests.get(row.userId) ?? []), row]);
      } else {
        messages.push({ userId: row.userId, rows: [row], content: row });
      }
    }
    for (const [userId, digestRows] of digests) {
      messages.push({ userId, rows: digestRows, content: await this.digestContent(digestRows) });
    }
    return messages;
  }

  /** One e-mail listing the rows grouped by document (oldest first), titled by the period. */
  private async digestContent(rows: Notification[]): Promise<OutgoingNotification> {
    const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    const groups = new Map<string | null, Notification[]>();
    for (const row of ordered) groups.set(row.documentId, [...(groups.get(row.documentId) ?? []), row]);
    const sections: string[] = [];
    for (const [documentId, members] of groups) {
      const title = documentId ? await this.delivery.documentTitle(documentId) : null;
      const heading = documentId ? `"${title ?? 'A document no longer here'}"` : 'Other';
      sections.push([heading, ...members.map((row) => `- ${row.message}`)].join('\n'));
    }
    const period = ordered[0].deliveryMode === 'daily' ? 'daily' : 'hourly';
    const count = `${rows.length} notification${rows.length === 1 ? '' : 's'}`;
    return {
      id: ordered[0].id,
      subject: `Your ${period} digest: ${count}`,
      message: `Your ${period} digest: ${count}.\n\n${sections.join('\n\n')}\n`,
    };
  }

  private async deliverOne({ userId, rows, content }: Message): Promise<void> {
    const [recipient] = await this.delivery.activeUsers([userId]);
    const attempts = Math.max(...rows.map((row) => row.attempts));
    try {
      if (!recipient) throw new PermanentDeliveryError('the recipient is no longer active');
      await this.email.deliver(content, recipient);
      await this.finish(rows, 'sent');
    } catch (error) {
      const permanent = error instanceof PermanentDeliveryError;
      if (permanent || attempts >= this.config.maxAttempts) {
        this.logger.warn(`e-mail ${content.id} failed after ${attempts} attempt(s): ${describe(error)}`);
        await this.finish(rows, 'failed');
      } else {
        // attempts counts the one just made: first retry after the base, then doubling.
        const delaySeconds = this.config.retryBaseSeconds * 2 ** (attempts - 1);
        const at = new Date(this.clock.now().getTime() + delaySeconds * 1000);
        await this.transactions.run(async (tx) => {
          for (const row of rows) await this.delivery.retryAt(tx, row.id, at);
        });
        return;
      }
    }
    // The rows' status changed (unless read): streams show the new unread count.
    this.hub.publish({ kind: 'count', userId });
  }

  private finish(rows: Notification[], outcome: 'sent' | 'failed'): Promise<void> {
    return this.transactions.run(async (tx) => {
      for (const row of rows) await this.delivery.finishDelivery(tx, row.id, outcome);
    });
  }
}

/** A log-safe description: the error's class and SMTP code, never its text (it may quote addresses). */
function describe(error: unknown): string {
  const { name, responseCode, code } = error as { name?: unknown; responseCode?: unknown; code?: unknown };
  const detail = typeof responseCode === 'number' ? responseCode : typeof code === 'string' ? code : '';
  return `${typeof name === 'string' ? name : 'Error'}${detail ? ` (${detail})` : ''}`;
}
