import { decodeHTML, decodeXML } from 'entities';

/** The charset a byte order mark announces, and the mark's length. */
export function byteOrderMark(
  bytes: Uint8Array,
): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

/**
 * Text from bytes: the charset of the byte order mark, else UTF-8 when the bytes are valid UTF-8,
 * else Windows-1252 (the commonest legacy charset; every byte sequence decodes).
 */
export function decodeText(bytes: Uint8Array): string {
  const mark = byteOrderMark(bytes);
  if (mark) return new TextDecoder(mark.encoding).decode(bytes.subarray(mark.length));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

const BLOCK_TAGS =
  /<\/?(?:p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|section|article|header|footer|blockquote|pre|hr)\b[^>]*>/gi;

/** HTML's visible text: scripts, styles and comments dropped, block elements on their own lines, entities decoded. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(BLOCK_TAGS, '\n')
    .replace(/<[^>]*>/g, ' ');
  return decodeHTML(text).replace(/[ \t\u00a0]+/g, ' ');
}

/** XML's character data: markup dropped, entities and CDATA decoded. */
export function xmlToText(xml: string): string {
  const text = xml
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_match, data: string) => data.replace(/</g, '&lt;'))
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\?[\s\S]*?\?>/g, ' ')
    .replace(/<!DOCTYPE[^>]*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ');
  return decodeXML(text).replace(/[ \t]+/g, ' ');
}
