import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import type { DomainEvent } from './domain-event.js';
import { OutboxEvent } from './entities/outbox-event.entity.js';
import { signalOutboxWrite } from './outbox-signal.js';

/**
 * The transactional outbox: a feature that changes something calls `append` with the Tx of that
 * change (Transactions.run), so the event commits or rolls back with it. `dispatched`: the writer
 * knows the event has nobody to reach, so it is stored as dispatched at `at` (and nobody is nudged).
 */
@Injectable()
export class OutboxRepository {
  async append(tx: Tx, event: DomainEvent, at?: Date, options: { dispatched?: boolean } = {}): Promise<void> {
    const row = outboxRow(event, at ?? new Date(), options.dispatched ?? false);
    await tx.getRepository(OutboxEvent).insert(row as QueryDeepPartialEntity<OutboxEvent>);
    if (!options.dispatched) signalOutboxWrite();
  }
}

function outboxRow(event: DomainEvent, at: Date, dispatched: boolean): OutboxEvent {
  return Object.assign(new OutboxEvent(), {
    id: randomUUID(),
    ...event,
    createdAt: at,
    dispatchedAt: dispatched ? at : null,
    webhooksQueuedAt: null,
    searchesMatchedAt: null,
  });
}
