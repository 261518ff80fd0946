import { ApiError } from '../common/errors/error-codes.js';

/** A position in the threads' newest-first order: the last thread a client has seen. */
export interface ThreadCursor {
  newestAt: Date;
  /** The thread's document, '' for a non-document source. */
  documentId: string;
  /** The non-document source (event type), '' for a document thread. */
  source: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of "<epoch ms>|<documentId>|<source>". */
export function encodeThreadCursor(cursor: ThreadCursor): string {
  return Buffer.from(`${cursor.newestAt.getTime()}|${cursor.documentId}|${cursor.source}`, 'utf8').toString(
    'base64url',
  );
}

export function decodeThreadCursor(raw: string): ThreadCursor {
  const invalid = () => new ApiError('validation_failed', 'cursor is not a value this service returned as nextCursor');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw invalid();
  const [millis, documentId, source, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (rest.length || !/^\d{1,15}$/.test(millis ?? '') || documentId === undefined || source === undefined) {
    throw invalid();
  }
  if (documentId ? !UUID.test(documentId) || source !== '' : !/^[a-z_.]{1,64}$/.test(source)) throw invalid();
  return { newestAt: new Date(Number(millis)), documentId, source };
}
