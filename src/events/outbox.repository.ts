import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm';
import { appendOnlyId } from '../common/ids/append-only-id.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { changesSearchMatches, type DomainEvent } from './domain-event.js';
import { OutboxEvent } from './entities/outbox-event.entity.js';
import { signalOutboxWrite } from './outbox-signal.js';

/**
 * The transactional outbox: a feature that changes something calls `append` with the Tx of that
 * change (Transactions.run), so the event commits or rolls back with it. `dispatched`: the writer
 * knows the event has nobody to reach, so it is stored as dispatched at `at` (and nobody is nudged).
 */
@Injectable()
export class OutboxRepository {
  constructor(private readonly transactions: Transactions) {}

  async append(tx: Tx, event: DomainEvent, at?: Date, options: { dispatched?: boolean } = {}): Promise<void> {
    const row = outboxRow(event, at ?? new Date(), options.dispatched ?? false);
    await tx.getRepository(OutboxEvent).insert(row as QueryDeepPartialEntity<OutboxEvent>);
    if (!options.dispatched) this.signalOnCommit(tx);
  }

  /** Several events of one transaction in one INSERT (a batch of share downloads). */
  async appendAll(tx: Tx, events: DomainEvent[], at?: Date): Promise<void> {
    if (events.length === 0) return;
    const when = at ?? new Date();
    const rows = events.map((event) => outboxRow(event, when, false));
    await tx.getRepository(OutboxEvent).insert(rows as QueryDeepPartialEntity<OutboxEvent>[]);
    this.signalOnCommit(tx);
  }

  /** Consumers of this process hear of the events once they are committed (once per transaction). */
  private signalOnCommit(tx: Tx): void {
    if (!this.transactions.afterCommit(tx, signalOutboxWrite, signalOutboxWrite)) signalOutboxWrite();
  }
}

function outboxRow(event: DomainEvent, at: Date, dispatched: boolean): OutboxEvent {
  return Object.assign(new OutboxEvent(), {
    id: appendOnlyId(),
    ...event,
    createdAt: at,
    dispatchedAt: dispatched ? at : null,
    webhooksQueuedAt: null,
    // Saved searches need no look at an event that cannot change what they match.
    searchesMatchedAt: event.documentId && changesSearchMatches(event.type) ? null : at,
  });
}
