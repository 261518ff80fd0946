import { ApiError } from '../common/errors/error-codes.js';

/** A position in the newest-first order: the (createdAt, id) of the last item a client has seen. */
export interface NotificationCursor {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque to clients: base64url of "<epoch milliseconds>.<id>" (exact for datetime(3) columns). */
export function encodeCursor(cursor: NotificationCursor): string {
  return Buffer.from(`${cursor.createdAt.getTime()}.${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): NotificationCursor {
  const invalid = () => new ApiError('validation_failed', 'cursor is not a value this service returned as nextCursor');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw invalid();
  const [millis, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('.');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || !UUID.test(id ?? '')) throw invalid();
  const createdAt = new Date(Number(millis));
  if (Number.isNaN(createdAt.getTime())) throw invalid();
  return { createdAt, id: id.toLowerCase() };
}
