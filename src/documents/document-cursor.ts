import { ApiError } from '../common/errors/error-codes.js';
import { isFieldSort, type KeysetSort } from './document-search.repository.js';

/** A position in one sort order: the sort, the last item's sort value and its id. */
export interface DocumentCursor {
  sort: KeysetSort;
  /** Epoch milliseconds for the date sorts, the title for the title sorts, the value for a field sort. */
  value: number | string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of {"s": sort, "v": value, "i": id}. */
export function encodeDocumentCursor(cursor: DocumentCursor): string {
  return Buffer.from(JSON.stringify({ s: cursor.sort, v: cursor.value, i: cursor.id }), 'utf8').toString('base64url');
}

/** The cursor, if it is one this service made for `sort`; else 400. */
export function decodeDocumentCursor(raw: string, sort: KeysetSort): DocumentCursor {
  const invalid = () =>
    new ApiError('validation_failed', 'cursor is not a value this service returned as nextCursor for this sort');
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(raw)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid();
  const { s, v, i } = parsed as Record<string, unknown>;
  if (s !== sort || typeof i !== 'string' || !UUID.test(i)) throw invalid();
  const byTitle = sort === 'title' || sort === '-title';
  if (isFieldSort(sort)) {
    // A custom field's value: a number, or the text (or YYYY-MM-DD date) it holds.
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) throw invalid();
  } else if (byTitle ? typeof v !== 'string' : !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
    throw invalid();
  }
  return { sort, value: v as number | string, id: i };
}
