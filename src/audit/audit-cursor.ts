import { ApiError } from '../common/errors/error-codes.js';
import type { AuditCursor } from './audit.repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque to clients: base64url of "<epoch milliseconds>.<id>" (exact for datetime(3) columns). */
export function encodeAuditCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.at.getTime()}.${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeAuditCursor(raw: string): AuditCursor {
  const invalid = () => new ApiError('validation_failed', 'cursor is not a value this service returned as nextCursor');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw invalid();
  const [millis, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('.');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || !UUID.test(id ?? '')) throw invalid();
  const at = new Date(Number(millis));
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, id: id.toLowerCase() };
}
