import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { appendOnlyId } from '../../common/ids/append-only-id.js';
import { Clock } from '../../common/time/clock.js';
import { Poller } from '../../common/time/poller.js';
import { Transactions } from '../../database/transactions.js';
import { DocumentParticipants } from '../../documents/document-participants.service.js';
import { BatchReads } from '../../events/batch-reads.js';
import type { OutboxEvent } from '../../events/entities/outbox-event.entity.js';
import { OUTBOX_NUDGE_DELAY_MS, onOutboxWrite } from '../../events/outbox-signal.js';
import { WEBHOOK_EVENT_TYPES } from '../dto/webhook.dto.js';
import type { WebhookDelivery } from '../entities/webhook-delivery.entity.js';
import type { Webhook } from '../entities/webhook.entity.js';
import { WebhooksRepository } from '../webhooks.repository.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';

const BATCH_SIZE = 50;
const POLL_MS = 250;

/**
 * Turns outbox events into webhook deliveries, one row per (event, hook): the outbox's own marker
 * for this consumer (`webhooksQueuedAt`) is claimed by a conditional UPDATE in the transaction that
 * inserts the event's deliveries, so with several instances each event is fanned out once (and the
 * unique (hookId, eventId) refuses a second row regardless). A hook hears of an event of its
 * project (or any, when global) of a type it lists, and never of a document its owner cannot read.
 */
@Injectable()
export class WebhookFanout implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookFanout');
  private readonly poller = new Poller(POLL_MS, () => this.fanOutBatch(), this.logger);
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly hooks: WebhooksRepository,
    private readonly transactions: Transactions,
    private readonly participants: DocumentParticipants,
    private readonly worker: WebhookDeliveryWorker,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.stopListening = onOutboxWrite(() => this.poller.wake(OUTBOX_NUDGE_DELAY_MS));
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopListening?.();
    await this.poller.stop();
  }

  /** One batch; answers whether a full batch was found (more may be waiting). */
  async fanOutBatch(): Promise<boolean> {
    const events = await this.hooks.pendingEvents(BATCH_SIZE);
    const unheard: string[] = [];
    let queued = false;
    // The hooks are read once per batch and project: a batch is mostly events of a few projects.
    const reads = new BatchReads();
    const enabledFor = (projectId: string | null) =>
      reads.once(`hooks:${projectId}`, () => this.hooks.enabledFor(projectId));
    for (const event of events) {
      const now = this.clock.now();
      const rows = await this.deliveriesFor(event, now, enabledFor);
      if (rows.length === 0) {
        unheard.push(event.id);
        continue;
      }
      await this.transactions.run(
        async (tx) => {
          if (!(await this.hooks.claimEvent(tx, event.id, now))) return;
          await this.hooks.insertDeliveries(tx, rows);
          queued = true;
        },
        { readCommitted: true },
      );
    }
    if (unheard.length) {
      const at = this.clock.now();
      await this.transactions.run((tx) => this.hooks.markQueued(tx, unheard, at), { readCommitted: true });
    }
    if (queued) this.worker.wake();
    return events.length === BATCH_SIZE;
  }

  private async deliveriesFor(
    event: OutboxEvent,
    now: Date,
    enabledFor: (projectId: string | null) => Promise<Webhook[]>,
  ): Promise<WebhookDelivery[]> {
    if (!WEBHOOK_EVENT_TYPES.includes(event.type)) return [];
    let hooks = (await enabledFor(event.projectId)).filter((hook) => hook.events.includes(event.type));
    if (hooks.length === 0) return [];
    if (event.documentId) {
      const owners = [...new Set(hooks.map((hook) => hook.ownerId))];
      const readers = new Set(await this.participants.readersAmong(event.documentId, owners));
      hooks = hooks.filter((hook) => readers.has(hook.ownerId));
    }
    const body = JSON.stringify({
      type: event.type,
      timestamp: event.createdAt.toISOString(),
      data: {
        eventId: event.id,
        projectId: event.projectId,
        documentId: event.documentId,
        actorId: event.actorId,
        subjectUserId: event.subjectUserId,
        ...event.payload,
      },
    });
    return hooks.map((hook) => ({
      id: appendOnlyId(),
      hookId: hook.id,
      eventId: event.id,
      eventType: event.type,
      body,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastAttemptAt: null,
      responseStatus: null,
      durationMs: null,
      lastError: null,
      createdAt: now,
      finishedAt: null,
    }));
  }
}
