import { Injectable } from '@nestjs/common';
import { appendOnlyId } from '../common/ids/append-only-id.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { AuditContext } from './audit-context.js';
import { chainedFields, chainHash } from './audit-chain.js';
import type { AuditChanges, AuditEvent } from './entities/audit-event.entity.js';
import { AuditRepository } from './audit.repository.js';

/** Where an event is written: the Tx of the change it records. */
export type AuditTransaction = Tx;

/** What a feature says about its change; who and from where come from the AuditContext. */
export interface AuditRecord {
  /** "<targetType>.<verb>", e.g. user.created, role.deleted, auth.login_failed. */
  action: string;
  targetType: string;
  targetId: string | null;
  /** Changed fields only, each { from, to }; never a password or a hash. */
  changes?: AuditChanges;
}

/**
 * Records audit events. Call `record(tx, context, event)` with the Tx of Transactions.run that
 * makes the change, so the event and the change stand or fall together. `recordAlone` is for events
 * with no change to join (login attempts). A feature imports AuditModule and injects AuditTrail.
 */
@Injectable()
export class AuditTrail {
  /** Events recorded in a transaction that is still open, linked right before its commit. */
  private readonly pending = new WeakMap<AuditTransaction, AuditEvent[]>();

  constructor(
    private readonly events: AuditRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Records the event in `tx`. It is linked to the hash chain as the last thing `tx` does before
   * its commit (with any other event of `tx`), so the chain head stays locked only for that
   * link and the commit, never during the change itself.
   */
  async record(tx: AuditTransaction, context: AuditContext, event: AuditRecord): Promise<void> {
    const row: AuditEvent = {
      ...this.row(context, event),
      at: new Date(),
      sequence: null,
      previousHash: null,
      hash: null,
    };
    const queued = this.pending.get(tx);
    if (queued) {
      queued.push(row);
      return;
    }
    const events = [row];
    if (this.transactions.beforeCommit(tx, this, (last) => this.link(last, events))) {
      this.pending.set(tx, events);
      return;
    }
    await this.link(tx, events);
  }

  /**
   * Locks the chain head and links the events to it in order (sequence + 1, previousHash = the hash
   * before, at never before the previous at), then inserts them in one statement; migration
   * 1763800000160's trigger moves the head with each row and refuses a row that does not follow it.
   */
  private async link(tx: AuditTransaction, events: AuditEvent[]): Promise<void> {
    this.pending.delete(tx);
    let previous = await this.events.lockHead(tx);
    for (const event of events) {
      if (event.at < previous.at) event.at = previous.at;
      event.sequence = previous.sequence + 1;
      event.previousHash = previous.hash;
      event.hash = chainHash(previous.hash, chainedFields(event, event.sequence));
      previous = { id: previous.id, sequence: event.sequence, hash: event.hash, at: event.at };
    }
    await this.events.append(tx, events);
  }

  /** An event that records no change of its own (a login attempt): a transaction of its own. */
  recordAlone(context: AuditContext, event: AuditRecord): Promise<void> {
    return this.transactions.run((tx) => this.record(tx, context, event));
  }

  private row(
    context: AuditContext,
    event: AuditRecord,
  ): Omit<AuditEvent, 'at' | 'sequence' | 'previousHash' | 'hash'> {
    return {
      id: appendOnlyId(),
      actorId: context.actorId,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      ip: context.ip?.slice(0, 64) ?? null,
      requestId: context.requestId,
      // As stored and read back (simple-json), so the hash covers exactly what a reader sees.
      changes: JSON.parse(JSON.stringify(event.changes ?? {})) as AuditChanges,
    };
  }
}

/**
 * The fields whose value differs between `before` and `after` (compared as JSON, so arrays and
 * objects by content), as audit changes. A creation passes `before` = {}, a deletion `after` = {}.
 */
export function changedFields(before: object, after: object, fields: string[]): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of fields) {
    const from = (before as Record<string, unknown>)[field] ?? null;
    const to = (after as Record<string, unknown>)[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}
