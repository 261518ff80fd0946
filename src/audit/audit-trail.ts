import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SqlTransaction } from '../database/sql-runner.js';
import type { AuditContext } from './audit-context.js';
import type { AuditChanges } from './entities/audit-event.entity.js';
import { AuditRepository } from './audit.repository.js';

/** Where an event is written: the transaction of the change it records. */
export type AuditTransaction = EntityManager | SqlTransaction;

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
 * Records audit events. Call `record(tx, context, event)` inside the transaction of the change,
 * so the event and the change stand or fall together. `tx` is either a TypeORM EntityManager
 * (`dataSource.transaction(manager => ...)`, what the users, roles and document-type services use)
 * or the SqlTransaction of `SqlRunner.transaction(tx => ...)` (hand-written SQL features); the row
 * is one portable INSERT either way. `recordAlone` is for events with no change to join (login
 * attempts). The module exports this service; a feature imports AuditModule and injects AuditTrail.
 */
@Injectable()
export class AuditTrail {
  constructor(private readonly events: AuditRepository) {}

  record(tx: AuditTransaction, context: AuditContext, event: AuditRecord): Promise<void> {
    return this.events.insert(tx, {
      id: randomUUID(),
      at: new Date(),
      actorId: context.actorId,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      ip: context.ip?.slice(0, 64) ?? null,
      requestId: context.requestId,
      changes: event.changes ?? {},
    });
  }

  /** An event that records no change of its own (a login attempt): written in its own statement. */
  recordAlone(context: AuditContext, event: AuditRecord): Promise<void> {
    return this.record(this.events.outsideTransaction, context, event);
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
