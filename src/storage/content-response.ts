/**
 * Pure helpers for the document download response (`GET|HEAD /api/documents/{id}/content`):
 * Content-Disposition, Range and conditional headers. No I/O; the controller applies them.
 */

/** What a Range header asks of a representation of a given size. */
export type RangeRequest =
  /** Answer 200 with the whole representation (no Range, one we ignore, or one not in bytes). */
  | { kind: 'whole' }
  /** Answer 206 with these inclusive byte positions and `Content-Range: bytes start-end/size`. */
  | { kind: 'partial'; start: number; end: number }
  /** Answer 416 with `Content-Range: bytes *\/size`. */
  | { kind: 'unsatisfiable' };

// RFC 9110 §14.1.1: range-spec = int-range / suffix-range, each 1*DIGIT bound.
const SINGLE_RANGE = /^[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/;

/**
 * Reads a Range header against a representation of `size` bytes (RFC 9110 §14.2).
 *
 * - `bytes=a-b`, `bytes=a-` and `bytes=-n` are served; an end past the last byte is clamped, and a
 *   suffix longer than the file is the whole file.
 * - A first position at or past the end, a suffix of zero, or any range of an empty file is
 *   unsatisfiable (416).
 * - More than one range is ignored and the whole file answered (200): §14.2 lets a server ignore
 *   Range, a 200 is always a correct answer, and it spares us multipart/byteranges and the
 *   many-small-ranges denial of service. Likewise a header that is not valid syntax, or names a
 *   unit other than bytes, is ignored.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const equals = header.indexOf('=');
  if (equals < 0 || header.slice(0, equals).trim().toLowerCase() !== 'bytes') return { kind: 'whole' };
  const set = header.slice(equals + 1);
  if (set.includes(',')) return { kind: 'whole' };
  const match = SINGLE_RANGE.exec(set);
  if (!match) return { kind: 'whole' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'whole' };

  if (first === '') {
    // Suffix range: the last n bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' }; // invalid: last-pos < first-pos
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}

/** The Content-Range value for a 206 (`bytes a-b/size`) or a 416 (`bytes *\/size`). */
export function contentRange(range: RangeRequest, size: number): string | undefined {
  if (range.kind === 'partial') return `bytes ${range.start}-${range.end}/${size}`;
  if (range.kind === 'unsatisfiable') return `bytes */${size}`;
  return undefined;
}

/** The strong ETag of a stored file: its sha256 in quotes. */
export function entityTag(sha256: string): string {
  return `"${sha256}"`;
}

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, in a comma-separated list.
const ENTITY_TAG_LIST_ITEM = /[ \t]*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/**
 * Whether an If-None-Match header matches the current representation, i.e. whether to answer
 * 304 Not Modified (RFC 9110 §13.1.2: weak comparison, `*` matches any). A malformed header
 * matches nothing, so the client gets the full answer.
 */
export function ifNoneMatchSatisfied(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const wanted = etag.startsWith('W/') ? etag.slice(2) : etag;
  ENTITY_TAG_LIST_ITEM.lastIndex = 0;
  let found = false;
  while (ENTITY_TAG_LIST_ITEM.lastIndex < header.length) {
    const match = ENTITY_TAG_LIST_ITEM.exec(header);
    if (!match) return false;
    if (match[1] === wanted) found = true;
  }
  return found;
}

/**
 * Whether an If-Range header lets Range apply (RFC 9110 §13.1.5): absent, or the strong ETag of
 * the current representation. A date or any other tag means "send the whole file".
 */
export function ifRangeAllowsRange(header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag;
}

// RFC 8187 §3.2.1 attr-char: the bytes that need no percent-encoding in filename*.
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_\x60|~]/; // \x60 is the backtick

function encodeRfc8187(value: string): string {
  let encoded = '';
  // Buffer.from turns lone surrogates into U+FFFD, so any JS string encodes.
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/**
 * An ASCII stand-in for clients that ignore filename*: accents dropped (é → e), and anything that
 * is not printable ASCII or that some clients treat specially (quote, backslash, percent, slash)
 * replaced with `_` (RFC 6266 Appendix D). A name with nothing left to read becomes
 * `download`, keeping its extension (報告書.docx → download.docx).
 */
function asciiFileName(fileName: string): string {
  const fallback = fileName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|[\x22\\%/]/gu, '_'); // \x22 is the double quote
  const dot = fallback.lastIndexOf('.');
  const stem = dot > 0 ? fallback.slice(0, dot) : fallback;
  const extension = dot > 0 ? fallback.slice(dot) : '';
  if (!/^[_ .]*$/.test(stem)) return fallback;
  return `download${/^[._ ]*$/.test(extension) ? '' : extension}`;
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded UTF-8>` (RFC 6266,
 * RFC 8187). Never lets a quote, CR or LF through, so the header cannot be split or broken out of.
 */
export function contentDisposition(fileName: string): string {
  return `attachment; filename="${asciiFileName(fileName)}"; filename*=UTF-8''${encodeRfc8187(fileName)}`;
}
