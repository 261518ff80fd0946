import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { setTimeout as delay, setImmediate } from 'node:timers/promises';
import pLimit from 'p-limit';
import { AuditTrail } from '../../audit/audit-trail.js';
import { CLI_AUDIT_CONTEXT } from '../../audit/audit-context.js';
import { Clock } from '../../common/time/clock.js';
import { Poller } from '../../common/time/poller.js';
import { webhooksConfig } from '../../config/configuration.js';
import { Transactions } from '../../database/transactions.js';
import { SYSTEM_ACTOR_ID } from '../../events/domain-event.js';
import { OutboxRepository } from '../../events/outbox.repository.js';
import type { WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import type { Webhook } from '../entities/webhook.entity.js';
import { WebhooksRepository, type AttemptOutcome } from '../webhooks.repository.js';
import { sendMessage, type SendOutcome } from './webhook-sender.js';

const POLL_MS = 1_000;
/** Deliveries start in slices of 50 ms (WEBHOOK_MAX_PER_SECOND / 20 each). */
const SLICE_MS = 50;
const PARALLEL_SENDS = 32;
/** Longest wait between two attempts. */
const MAX_DELAY_SECONDS = 6 * 3600;
/** Up to this share of the delay is added at random, so failed receivers are not hit in step. */
const JITTER = 0.2;

/**
 * Wait before the next attempt after `attempts` attempts: the base doubled per attempt after the
 * first, capped at 6 h, plus up to 20 % jitter. With the defaults (30 s, 13 attempts) the last
 * attempt comes about 20-24 h after the first.
 */
export function retryDelayMs(attempts: number, baseSeconds: number, random: () => number = Math.random): number {
  const seconds = Math.min(baseSeconds * 2 ** (attempts - 1), MAX_DELAY_SECONDS);
  return Math.round(seconds * (1 + JITTER * random()) * 1000);
}

/** Sends due deliveries once each (a conditional claim), retrying and disabling as docs/notifications.md says. */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly poller = new Poller(POLL_MS, () => this.deliverBatch(), this.logger);
  private readonly limit = pLimit(PARALLEL_SENDS);

  constructor(
    private readonly hooks: WebhooksRepository,
    private readonly transactions: Transactions,
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    @Inject(webhooksConfig.KEY) private readonly config: ConfigType<typeof webhooksConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
  }

  wake(): void {
    this.poller.wake();
  }

  /**
   * One slice of due deliveries (WEBHOOK_MAX_PER_SECOND / 20), sent in parallel; outcomes are
   * recorded as they come, those that finished while a write was under way together in the next
   * transaction (a slow receiver delays no one else's record). A full slice takes at least 50 ms,
   * so the instance starts at most WEBHOOK_MAX_PER_SECOND a second. Answers whether it was full.
   */
  async deliverBatch(): Promise<boolean> {
    const started = performance.now();
    const sliceSize = Math.ceil((this.config.maxPerSecond * SLICE_MS) / 1000);
    const now = this.clock.now();
    const due = await this.hooks.dueDeliveries(sliceSize, now);
    if (due.length === 0) return false;
    // Longer than any attempt: a worker that dies mid-send leaves the delivery due again after it.
    const leaseUntil = new Date(now.getTime() + this.config.timeoutSeconds * 1000 + 60_000);
    const ids = await this.transactions.run((tx) => this.hooks.claimDeliveries(tx, due, now, leaseUntil), {
      readCommitted: true,
    });
    const deliveries = await this.hooks.deliveriesById(ids);
    const hooks = new Map(
      (await this.hooks.hooksById([...new Set(deliveries.map((d) => d.hookId))])).map((h) => [h.id, h]),
    );
    const records = new GroupedWrites<{ id: string; fields: AttemptOutcome }>((items) =>
      this.transactions.run((tx) => this.hooks.recordAttempts(tx, items)),
    );
    const sends: Promise<void>[] = [];
    for (const delivery of deliveries) {
      // Requests first: each send starts in a turn of the event loop of its own.
      await setImmediate();
      sends.push(
        this.limit(async () => {
          const hook = hooks.get(delivery.hookId);
          const { outcome, last } = await this.attempt(delivery, hook);
          await records.add({ id: delivery.id, fields: this.fields(delivery, outcome, last, this.clock.now()) });
          if (last && hook?.enabled) await this.disableIfFailing(hook);
        }),
      );
    }
    await Promise.all(sends);
    const full = due.length === sliceSize;
    if (full) await delay(Math.max(0, started + SLICE_MS - performance.now()));
    return full;
  }

  private async attempt(
    delivery: WebhookDelivery,
    hook: Webhook | undefined,
  ): Promise<{ outcome: SendOutcome; last: boolean }> {
    if (!hook || !hook.enabled) {
      return { outcome: { status: null, durationMs: 0, error: 'the webhook is disabled' }, last: true };
    }
    const sentAt = this.clock.now();
    const outcome = await sendMessage(
      {
        url: hook.url,
        id: delivery.id,
        timestamp: Math.floor(sentAt.getTime() / 1000),
        body: delivery.body,
        secret: hook.secret,
      },
      this.config,
      this.config.timeoutSeconds * 1000,
    );
    return { outcome, last: outcome.error !== null && delivery.attempts >= this.config.maxAttempts };
  }

  private fields(delivery: WebhookDelivery, outcome: SendOutcome, last: boolean, now: Date): AttemptOutcome {
    const succeeded = outcome.error === null;
    const finished = succeeded || last;
    return {
      status: succeeded ? 'succeeded' : finished ? 'failed' : 'pending',
      nextAttemptAt: finished
        ? null
        : new Date(now.getTime() + retryDelayMs(delivery.attempts, this.config.retryBaseSeconds)),
      responseStatus: outcome.status,
      durationMs: outcome.durationMs,
      lastError: outcome.error,
      finishedAt: finished ? now : null,
    };
  }

  private async disableIfFailing(hook: Webhook): Promise<void> {
    const statuses = await this.hooks.lastFinishedStatuses(hook.id, this.config.disableAfter);
    if (statuses.length < this.config.disableAfter || statuses.some((status) => status !== 'failed')) return;
    const now = this.clock.now();
    const disabled = await this.transactions.run(async (tx) => {
      if (!(await this.hooks.disable(tx, hook.id, now))) return false;
      await this.outbox.append(
        tx,
        {
          type: 'webhook.disabled',
          actorId: SYSTEM_ACTOR_ID,
          projectId: hook.projectId,
          documentId: null,
          subjectUserId: hook.ownerId,
          payload: { webhookId: hook.id, url: hook.url, failures: this.config.disableAfter },
        },
        now,
      );
      await this.audit.record(tx, CLI_AUDIT_CONTEXT, {
        action: 'webhook.disabled',
        targetType: 'webhook',
        targetId: hook.id,
        changes: { enabled: { from: true, to: false } },
      });
      return true;
    });
    if (disabled) this.logger.warn(`webhook ${hook.id} disabled after ${this.config.disableAfter} failed deliveries`);
  }
}

/**
 * Writes items in groups: an item added while a write is under way waits for the next one, which
 * takes every item gathered meanwhile (one transaction, one commit for many outcomes).
 */
class GroupedWrites<T> {
  private queue: { item: T; done: () => void; failed: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise((done, failed) => {
      this.queue.push({ item, done, failed });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length) {
      const group = this.queue.splice(0);
      try {
        await this.write(group.map((entry) => entry.item));
        for (const entry of group) entry.done();
      } catch (error) {
        for (const entry of group) entry.failed(error);
      }
    }
    this.writing = false;
  }
}
