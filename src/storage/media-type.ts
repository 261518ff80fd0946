import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';

export const FALLBACK_MEDIA_TYPE = 'application/octet-stream';

// RFC 6838 §4.2: type-name "/" subtype-name, each a restricted-name of 1 to 127 characters.
const RESTRICTED_NAME = '[a-z0-9][a-z0-9!#$&^_.+-]{0,126}';
const MEDIA_TYPE = new RegExp(`^${RESTRICTED_NAME}/${RESTRICTED_NAME}$`);
const RECOGNISABLE: ReadonlySet<string> = supportedMimeTypes;

/** The lower-cased `type/subtype` of a declared media type, or undefined when it is not RFC 6838 syntax. */
export function normalizeMediaType(declared: string | undefined): string | undefined {
  if (declared === undefined) return undefined;
  const essence = declared.split(';', 1)[0].trim().toLowerCase();
  return MEDIA_TYPE.test(essence) ? essence : undefined;
}

const BYTE_ORDER_MARKS: [bytes: number[], encoding: string][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

/** Media types whose content is text (kept when declared for a file that starts with a byte order mark). */
function isTextType(type: string): boolean {
  return type.startsWith('text/') || type === 'application/json' || type === 'application/xml';
}

/**
 * Whether `head` starts with a byte order mark followed by text in its encoding (no control
 * characters but whitespace; the sample may end inside a character).
 */
export function textWithByteOrderMark(head: Uint8Array): boolean {
  const mark = BYTE_ORDER_MARKS.find(([bytes]) => bytes.every((byte, index) => head[index] === byte));
  if (!mark) return false;
  const body = head.subarray(mark[0].length);
  const whole = mark[1] === 'utf-8' ? body : body.subarray(0, body.length - (body.length % 2));
  const decoded = new TextDecoder(mark[1]).decode(whole);
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(decoded.slice(0, -1));
}

/**
 * The media type to store for a file, from the first bytes of its content (`head`, e.g. a
 * PendingWrite's sample) and the type its sender declared:
 * 1. what file-type recognises in the bytes, whatever was declared;
 * 2. else the declared type, when it is valid RFC 6838 syntax and not a type file-type knows how
 *    to recognise (declaring `image/png` for bytes that are no PNG contradicts them);
 * 3. else application/octet-stream.
 */
export async function detectMediaType(head: Uint8Array, declared?: string): Promise<string> {
  // A UTF-16 byte order mark reads as an MPEG audio frame header to file-type.
  const text = textWithByteOrderMark(head);
  if (text) {
    const declaredType = normalizeMediaType(declared);
    return declaredType && isTextType(declaredType) ? declaredType : 'text/plain';
  }
  // A detector that trips over malformed bytes means "not recognised", not a failed upload.
  const detected = head.length > 0 ? await fileTypeFromBuffer(head).catch(() => undefined) : undefined;
  if (detected) return detected.mime;
  const declaredType = normalizeMediaType(declared);
  if (declaredType === undefined || RECOGNISABLE.has(declaredType)) return FALLBACK_MEDIA_TYPE;
  return declaredType;
}
