import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type QueryDeepPartialEntity } from 'typeorm';
import type { SqlTransaction } from '../database/sql-runner.js';
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
  constructor(private readonly dataSource: DataSource) {}

  async append(
    tx: Tx | SqlTransaction,
    event: DomainEvent,
    at?: Date,
    options: { dispatched?: boolean } = {},
  ): Promise<void> {
    const row = outboxRow(event, at ?? new Date(), options.dispatched ?? false);
    if ('execute' in tx) {
      // Documents and projects still write through SqlRunner; this branch goes when they move to Transactions.
      await tx.execute(...this.statementOf(row));
    } else {
      await tx.getRepository(OutboxEvent).insert(row as QueryDeepPartialEntity<OutboxEvent>);
    }
    if (!options.dispatched) signalOutboxWrite();
  }

  /**
   * The INSERT of one event as text, for documents' batched writes on SqlRunner (their only use):
   * to be removed with SqlRunner once they write through Transactions.run and `append`.
   */
  insertStatement(event: DomainEvent, at: Date = new Date(), { dispatched = false } = {}): [string, unknown[]] {
    const row = outboxRow(event, at, dispatched);
    if (!dispatched) signalOutboxWrite();
    return this.statementOf(row);
  }

  /** Plain `INSERT INTO t (columns) VALUES (?, ...)`: the only form SqlRunner's MySQL batch accepts. */
  private statementOf(row: OutboxEvent): [string, unknown[]] {
    const { columns } = this.dataSource.getMetadata(OutboxEvent);
    const values = columns.map((column) =>
      this.dataSource.driver.preparePersistentValue(column.getEntityValue(row), column),
    );
    const names = columns.map((column) => column.databaseName).join(', ');
    return [`INSERT INTO outbox_events (${names}) VALUES (${columns.map(() => '?').join(', ')})`, values];
  }
}

function outboxRow(event: DomainEvent, at: Date, dispatched: boolean): OutboxEvent {
  return Object.assign(new OutboxEvent(), {
    id: randomUUID(),
    ...event,
    createdAt: at,
    dispatchedAt: dispatched ? at : null,
  });
}
