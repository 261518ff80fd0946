import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, type SqlTransaction } from '../database/sql-runner.js';
import type { Tx } from '../database/transactions.js';
import type { DomainEvent } from './domain-event.js';
import { OutboxEvent } from './entities/outbox-event.entity.js';
import { signalOutboxWrite } from './outbox-signal.js';
import { OUTBOX_COLUMNS, OUTBOX_INSERT_SQL } from './outbox.sql.js';

/**
 * The transactional outbox: a feature that changes something calls `append` with the transaction
 * of that change (SqlRunner.transaction's `tx`), so the event commits or rolls back with it.
 */
@Injectable()
export class OutboxRepository {
  private readonly rows: EntityRows<OutboxEvent>;

  constructor(dataSource: DataSource) {
    this.rows = new EntityRows(dataSource, OutboxEvent);
  }

  /**
   * The INSERT of one event, for a transaction that runs its statements itself. `dispatched`: the
   * writer knows the event has nobody to reach, so it is stored as dispatched at `at` (and nobody is nudged).
   */
  insertStatement(event: DomainEvent, at: Date = new Date(), { dispatched = false } = {}): [string, unknown[]] {
    const row: OutboxEvent = Object.assign(new OutboxEvent(), {
      id: randomUUID(),
      ...event,
      createdAt: at,
      dispatchedAt: dispatched ? at : null,
    });
    if (!dispatched) signalOutboxWrite();
    return [OUTBOX_INSERT_SQL, OUTBOX_COLUMNS.map((column) => this.rows.toColumn(column, row[column]))];
  }

  /** Writes the event in the change's transaction (a Tx from Transactions.run, or the legacy runner's). */
  async append(
    tx: Tx | SqlTransaction,
    event: DomainEvent,
    at?: Date,
    options: { dispatched?: boolean } = {},
  ): Promise<void> {
    if ('execute' in tx) {
      await tx.execute(...this.insertStatement(event, at, options));
      return;
    }
    const when = at ?? new Date();
    const row = Object.assign(new OutboxEvent(), {
      id: randomUUID(),
      ...event,
      createdAt: when,
      dispatchedAt: options.dispatched ? when : null,
    });
    await tx.getRepository(OutboxEvent).save(row, { reload: false });
    if (!options.dispatched) signalOutboxWrite();
  }
}
