import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import pLimit from 'p-limit';
import { notificationsConfig } from '../../config/configuration.js';
import { Transactions } from '../../database/transactions.js';
import type { Notification } from '../entities/notification.entity.js';
import { NotificationHub } from '../stream/notification-hub.js';
import { DeliveryRepository } from './delivery.repository.js';
import { EmailChannel } from './email.channel.js';
import { PermanentDeliveryError } from './notification-channel.js';
import { NotificationDispatcher } from './notification-dispatcher.js';
import { Poller } from '../../common/time/poller.js';

const POLL_MS = 1_000;
const BATCH_SIZE = 50;
const PARALLEL_SENDS = 10;
/** How long a claimed e-mail is ours: longer than any send (nodemailer times out sooner). */
const LEASE_MS = 120_000;

/**
 * Sends `pending` e-mail notifications when SMTP_URL is set: claims due rows (see
 * DeliveryRepository.claimEmails, so two instances never send one e-mail twice), sends them
 * through the pooled transport, and records `sent`; a temporary failure (connection refused, 4xx)
 * is retried after NOTIFY_RETRY_BASE_SECONDS, doubling each time, until NOTIFY_MAX_ATTEMPTS
 * attempts in all, then `failed`; a 5xx rejection fails at once. An SMTP outage only delays.
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
    const now = new Date();
    const claimed = await this.claimDue(now, new Date(now.getTime() + LEASE_MS));
    await Promise.all(claimed.map((notification) => this.limit(() => this.deliverOne(notification))));
    return claimed.length === BATCH_SIZE;
  }

  /**
   * Candidates by a plain read, then each claimed by primary key in one transaction (see
   * DeliveryRepository.claimEmails), so two instances never send one e-mail twice. A worker that
   * dies mid-send leaves the row to be retried after the lease.
   */
  private async claimDue(now: Date, leaseUntil: Date): Promise<Notification[]> {
    const due = await this.delivery.dueEmails(BATCH_SIZE, now);
    if (due.length === 0) return [];
    const ids = await this.transactions.run((tx) => this.delivery.claimEmails(tx, due, leaseUntil), {
      readCommitted: true,
    });
    return this.delivery.notificationsById(ids);
  }

  private async deliverOne(notification: Notification): Promise<void> {
    const [recipient] = await this.delivery.activeUsers([notification.userId]);
    try {
      if (!recipient) throw new PermanentDeliveryError('the recipient is no longer active');
      await this.email.deliver(notification, recipient);
      await this.finish(notification.id, 'sent');
    } catch (error) {
      const permanent = error instanceof PermanentDeliveryError;
      if (permanent || notification.attempts >= this.config.maxAttempts) {
        this.logger.warn(
          `e-mail ${notification.id} failed after ${notification.attempts} attempt(s): ${describe(error)}`,
        );
        await this.finish(notification.id, 'failed');
      } else {
        // attempts counts the one just made: first retry after the base, then doubling.
        const delaySeconds = this.config.retryBaseSeconds * 2 ** (notification.attempts - 1);
        const at = new Date(Date.now() + delaySeconds * 1000);
        await this.transactions.run((tx) => this.delivery.retryAt(tx, notification.id, at));
        return;
      }
    }
    // The row's status changed (unless it had been read): streams show the new unread count.
    this.hub.publish({ kind: 'count', userId: notification.userId });
  }

  private finish(id: string, outcome: 'sent' | 'failed'): Promise<void> {
    return this.transactions.run((tx) => this.delivery.finishDelivery(tx, id, outcome));
  }
}

/** A log-safe description: the error's class and SMTP code, never its text (it may quote addresses). */
function describe(error: unknown): string {
  const { name, responseCode, code } = error as { name?: unknown; responseCode?: unknown; code?: unknown };
  const detail = typeof responseCode === 'number' ? responseCode : typeof code === 'string' ? code : '';
  return `${typeof name === 'string' ? name : 'Error'}${detail ? ` (${detail})` : ''}`;
}
