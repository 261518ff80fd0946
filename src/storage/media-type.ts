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

/**
 * The media type to store for a file, from the first bytes of its content (`head`, e.g. a
 * PendingWrite's sample) and the type its sender declared:
 * 1. what file-type recognises in the bytes, whatever was declared;
 * 2. else the declared type, when it is valid RFC 6838 syntax and not a type file-type knows how
 *    to recognise (declaring `image/png` for bytes that are no PNG contradicts them);
 * 3. else application/octet-stream.
 */
export async function detectMediaType(head: Uint8Array, declared?: string): Promise<string> {
  // A detector that trips over malformed bytes means "not recognised", not a failed upload.
  const detected = head.length > 0 ? await fileTypeFromBuffer(head).catch(() => undefined) : undefined;
  if (detected) return detected.mime;
  const declaredType = normalizeMediaType(declared);
  if (declaredType === undefined || RECOGNISABLE.has(declaredType)) return FALLBACK_MEDIA_TYPE;
  return declaredType;
}
