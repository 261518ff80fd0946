import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, In, IsNull, LessThanOrEqual, Not, type Repository } from 'typeorm';
import type { KeysetCursor } from '../common/pagination/keyset-cursor.js';
import { insertStatement } from '../database/raw-rows.js';
import type { Tx } from '../database/transactions.js';
import { OutboxEvent } from '../events/entities/outbox-event.entity.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';

const ROWS_PER_INSERT = 200;
const IN_CHUNK = 500;

const OUTCOME_FIELDS = ['status', 'nextAttemptAt', 'responseStatus', 'durationMs', 'lastError', 'finishedAt'] as const;

/** What an attempt leaves on its delivery. */
export type AttemptOutcome = Pick<WebhookDelivery, (typeof OUTCOME_FIELDS)[number]>;

/** Every statement of the webhooks feature: hooks, their delivery log, and the outbox's webhook marker. */
@Injectable()
export class WebhooksRepository {
  private readonly hooks: Repository<Webhook>;
  private readonly deliveries: Repository<WebhookDelivery>;
  private readonly events: Repository<OutboxEvent>;
  private readonly mysql: boolean;

  constructor(dataSource: DataSource) {
    this.hooks = dataSource.getRepository(Webhook);
    this.deliveries = dataSource.getRepository(WebhookDelivery);
    this.events = dataSource.getRepository(OutboxEvent);
    this.mysql = dataSource.options.type === 'mysql';
  }

  async projectExists(id: string): Promise<boolean> {
    const row = await this.hooks.manager
      .createQueryBuilder()
      .select('p.id', 'id')
      .from('projects', 'p')
      .where('p.id = :id', { id })
      .getRawOne<{ id: string }>();
    return row !== undefined;
  }

  find(id: string): Promise<Webhook | null> {
    return this.hooks.findOneBy({ id });
  }

  async insert(tx: Tx, hook: Webhook): Promise<void> {
    await tx.getRepository(Webhook).insert(hook);
  }

  async update(tx: Tx, id: string, fields: Partial<Omit<Webhook, 'id'>>): Promise<void> {
    await tx.getRepository(Webhook).update({ id }, fields);
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(Webhook).delete({ id });
  }

  /** Enabled hooks that may hear of an event of `projectId` (global ones, and that project's). */
  enabledFor(projectId: string | null): Promise<Webhook[]> {
    return this.hooks.find({
      where: projectId
        ? [
            { enabled: true, projectId: IsNull() },
            { enabled: true, projectId },
          ]
        : { enabled: true, projectId: IsNull() },
    });
  }

  /** Disables the hook unless it already is; answers whether this call did. */
  async disable(tx: Tx, id: string, at: Date): Promise<boolean> {
    const result = await tx
      .getRepository(Webhook)
      .update({ id, enabled: true }, { enabled: false, disabledAt: at, updatedAt: at });
    return result.affected === 1;
  }

  // ---- The outbox, as the fan-out reads it ----

  /** Up to `limit` events the fan-out has not handled, oldest first: a plain read (the claim is per event). */
  pendingEvents(limit: number): Promise<OutboxEvent[]> {
    return this.events.find({ where: { webhooksQueuedAt: IsNull() }, order: { createdAt: 'ASC' }, take: limit });
  }

  /** Claims one event for the fan-out in the caller's transaction (see DeliveryRepository.claimEvent). */
  async claimEvent(tx: Tx, id: string, now: Date): Promise<boolean> {
    if (this.mysql) {
      const free = await tx
        .createQueryBuilder(OutboxEvent, 'e')
        .select('e.id')
        .where('e.id = :id AND e.webhooksQueuedAt IS NULL', { id })
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getRawMany();
      if (free.length === 0) return false;
    }
    const result = await tx.update(OutboxEvent, { id, webhooksQueuedAt: IsNull() }, { webhooksQueuedAt: now });
    return result.affected === 1;
  }

  /** Marks events no hook is to hear of as handled (conditional: one another instance claimed stays as it is). */
  async markQueued(tx: Tx, ids: string[], now: Date): Promise<void> {
    for (let start = 0; start < ids.length; start += IN_CHUNK) {
      const chunk = ids.slice(start, start + IN_CHUNK);
      await tx.update(OutboxEvent, { id: In(chunk), webhooksQueuedAt: IsNull() }, { webhooksQueuedAt: now });
    }
  }

  // ---- Deliveries ----

  /** Inserts the rows, skipping any whose (hookId, eventId) exists; answers how many were inserted. */
  async insertDeliveries(tx: Tx, rows: WebhookDelivery[]): Promise<number> {
    let inserted = 0;
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const [sql, parameters] = insertStatement(tx, WebhookDelivery, rows.slice(start, start + ROWS_PER_INSERT), {
        ignoreDuplicates: true,
      });
      const result = await tx.queryRunner!.query(sql, parameters, true);
      inserted += result.affected ?? 0;
    }
    return inserted;
  }

  findDelivery(hookId: string, id: string): Promise<WebhookDelivery | null> {
    return this.deliveries.findOneBy({ id, hookId });
  }

  /** One page of a hook's deliveries, newest first; `limit + 1` tells if more follow. */
  deliveryPage(hookId: string, limit: number, before?: KeysetCursor): Promise<WebhookDelivery[]> {
    const query = this.deliveries
      .createQueryBuilder('d')
      .where('d.hookId = :hookId', { hookId })
      .orderBy('d.createdAt', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .take(limit + 1);
    if (before) {
      query.andWhere(
        new Brackets((keyset) =>
          keyset
            .where('d.createdAt < :at', { at: before.at })
            .orWhere('d.createdAt = :at AND d.id < :id', { at: before.at, id: before.id }),
        ),
      );
    }
    return query.getMany();
  }

  /** Up to `limit` deliveries due by `now`, by a plain read: the candidates of a claim. */
  dueDeliveries(limit: number, now: Date): Promise<Pick<WebhookDelivery, 'id' | 'nextAttemptAt'>[]> {
    return this.deliveries.find({
      select: { id: true, nextAttemptAt: true },
      where: { nextAttemptAt: LessThanOrEqual(now) },
      order: { nextAttemptAt: 'ASC' },
      take: limit,
    });
  }

  /**
   * Claims due deliveries in the caller's transaction: one read of those still due (on MySQL
   * locking them and skipping rows another instance holds; SQLite has one writer), then one UPDATE
   * that moves them to the lease end and counts the attempt. Answers the ids claimed.
   */
  async claimDeliveries(
    tx: Tx,
    due: Pick<WebhookDelivery, 'id' | 'nextAttemptAt'>[],
    now: Date,
    leaseUntil: Date,
  ): Promise<string[]> {
    if (due.length === 0) return [];
    const query = tx
      .createQueryBuilder(WebhookDelivery, 'd')
      .select('d.id', 'id')
      .where('d.id IN (:...ids) AND d.nextAttemptAt <= :now', { ids: due.map((row) => row.id), now });
    if (this.mysql) query.setLock('pessimistic_write').setOnLocked('skip_locked');
    const claimed = (await query.getRawMany<{ id: string }>()).map((row) => row.id);
    if (claimed.length === 0) return [];
    await tx
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({ nextAttemptAt: leaseUntil, lastAttemptAt: now, attempts: () => 'attempts + 1' })
      .where('id IN (:...ids)', { ids: claimed })
      .execute();
    return claimed;
  }

  deliveriesById(ids: string[]): Promise<WebhookDelivery[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.deliveries.findBy({ id: In(ids) });
  }

  hooksById(ids: string[]): Promise<Webhook[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.hooks.findBy({ id: In(ids) });
  }

  /** Records attempts' outcomes (one UPDATE each); `nextAttemptAt` null ends a delivery (with `status`). */
  async recordAttempts(tx: Tx, outcomes: { id: string; fields: AttemptOutcome }[]): Promise<void> {
    // One fixed UPDATE text per outcome: building an update per row cost more than running it (SQLite runs it on the event loop).
    const metadata = tx.connection.getMetadata(WebhookDelivery);
    const columns = OUTCOME_FIELDS.map((field) => metadata.findColumnWithPropertyName(field)!);
    const sql = `UPDATE webhook_deliveries SET ${columns.map((column) => `${column.databaseName} = ?`).join(', ')} WHERE id = ?`;
    for (const { id, fields } of outcomes) {
      const values = columns.map((column) =>
        tx.connection.driver.preparePersistentValue(column.getEntityValue(fields), column),
      );
      await tx.query(sql, [...values, id]);
    }
  }

  /** Statuses of the hook's last `count` finished deliveries, newest first. */
  async lastFinishedStatuses(hookId: string, count: number): Promise<string[]> {
    const rows = await this.deliveries.find({
      select: { status: true },
      where: { hookId, finishedAt: Not(IsNull()) },
      order: { finishedAt: 'DESC' },
      take: count,
    });
    return rows.map((row) => row.status);
  }

  /** Puts a delivery back in the queue, due at `now`, with a fresh count of attempts. */
  async requeue(tx: Tx, id: string, now: Date): Promise<void> {
    await tx
      .getRepository(WebhookDelivery)
      .update(
        { id },
        { status: 'pending', attempts: 0, nextAttemptAt: now, finishedAt: null, lastError: null, responseStatus: null },
      );
  }
}
