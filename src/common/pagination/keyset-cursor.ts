import { ApiError } from '../errors/error-codes.js';

/** A position in a (timestamp, id) order: the last item a client has seen. */
export interface KeysetCursor {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque to clients: base64url of "<epoch milliseconds>.<id>" (exact for DATETIME(3) columns). */
export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return Buffer.from(`${cursor.at.getTime()}.${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeKeysetCursor(raw: string): KeysetCursor {
  const invalid = () => new ApiError('validation_failed', 'cursor is not a value this service returned as nextCursor');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw invalid();
  const [millis, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('.');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || !UUID.test(id ?? '')) throw invalid();
  const at = new Date(Number(millis));
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, id: id.toLowerCase() };
}
