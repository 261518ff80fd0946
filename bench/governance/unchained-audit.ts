// Preloaded (node --import) into the bench's "unchained" service only: AuditTrail keeps writing
// every audit event in the change's transaction, but as an unchained row (no head lock, no
// sequence, no hash), like the events older than the chain. The service code has no such switch.
import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import type { AuditContext } from '../../src/audit/audit-context.js';
import { AuditTrail, type AuditRecord, type AuditTransaction } from '../../src/audit/audit-trail.js';
import { AuditEvent } from '../../src/audit/entities/audit-event.entity.js';

AuditTrail.prototype.record = async function recordUnchained(
  tx: AuditTransaction,
  context: AuditContext,
  event: AuditRecord,
): Promise<void> {
  const row = {
    id: randomUUID(),
    at: new Date(),
    actorId: context.actorId,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    ip: context.ip?.slice(0, 64) ?? null,
    requestId: context.requestId,
    changes: JSON.parse(JSON.stringify(event.changes ?? {})) as unknown,
    sequence: null,
    previousHash: null,
    hash: null,
  };
  await tx.getRepository(AuditEvent).insert(row as QueryDeepPartialEntity<AuditEvent>);
};
