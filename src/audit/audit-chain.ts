import { createHash } from 'node:crypto';
import type { AuditEvent } from './entities/audit-event.entity.js';

/** The previousHash of the first chained event (sequence 1): 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields an event's hash covers, in the form the export writes them. */
export interface ChainedFields {
  sequence: number;
  id: string;
  /** ISO 8601, UTC, milliseconds: 2026-03-02T09:15:27.412Z. */
  at: string;
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  ip: string | null;
  requestId: string | null;
  changes: unknown;
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) for the values an event holds (strings, integers,
 * booleans, null, arrays, objects): object keys sorted by UTF-16 code units, no whitespace, strings
 * and numbers as ECMAScript's JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function chainedFields(event: AuditEvent, sequence: number): ChainedFields {
  return {
    sequence,
    id: event.id,
    at: event.at.toISOString(),
    actorId: event.actorId,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    ip: event.ip,
    requestId: event.requestId,
    changes: event.changes,
  };
}

/** hex(SHA-256(UTF-8(previousHash ‖ canonicalJson(fields)))), previousHash as 64 lowercase hex digits. */
export function chainHash(previousHash: string, fields: ChainedFields): string {
  return createHash('sha256').update(previousHash).update(canonicalJson(fields)).digest('hex');
}
