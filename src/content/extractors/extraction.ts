/** The bounds of one version's extraction (CONTENT_* settings). */
export interface ContentLimits {
  maxChars: number;
  maxPages: number;
  timeoutMs: number;
  /** Bytes a zipped format may unpack to, and bytes of a text file read into memory. */
  maxUncompressedBytes: number;
  ocr: { enabled: boolean; languages: string };
}

/** What reading a version gave. */
export type Extraction =
  | { status: 'indexed'; text: string; pages: number | null }
  | { status: 'unsupported' | 'failed' | 'too_large'; error: string; pages: number | null };

/** A file that cannot be read as it is (damaged, a zip bomb, over a limit): ends the version's extraction. */
export class ExtractionError extends Error {
  override name = 'ExtractionError';

  constructor(
    readonly status: 'failed' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** Text as stored: control characters but tab and newlines dropped, runs of blank lines squeezed, at most maxChars code points. */
export function tidyText(text: string, maxChars: number): string {
  const tidy = text
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufeff]/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const codePoints = Array.from(tidy);
  return codePoints.length <= maxChars ? tidy : codePoints.slice(0, maxChars).join('');
}
