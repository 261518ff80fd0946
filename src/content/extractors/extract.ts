import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ExtractionError, tidyText, type ContentLimits, type Extraction } from './extraction.js';
import { extractOffice } from './office.js';
import type { PreviewSize } from '../entities/document-preview.entity.js';
import { extractImage, extractPdf, inTemporaryDirectory } from './pdf-and-images.js';
import { hasPreview, renderPreviews } from './previews.js';
import { decodeText, htmlToText, xmlToText } from './text-decoding.js';

const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'text/csv', 'application/json']);
const XML_TYPES = new Set(['application/xml', 'text/xml']);
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/tiff', 'image/webp']);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ODT = 'application/vnd.oasis.opendocument.text';

/** The formats extraction reads (README "Content and search"). */
export function isSupported(mimeType: string, ocrEnabled: boolean): boolean {
  return (
    TEXT_TYPES.has(mimeType) ||
    XML_TYPES.has(mimeType) ||
    mimeType === 'text/html' ||
    mimeType === 'application/pdf' ||
    mimeType === DOCX ||
    mimeType === ODT ||
    (ocrEnabled && IMAGE_TYPES.has(mimeType))
  );
}

/** The extraction of a format nothing is read from (neither text nor preview), so its file is never opened. */
export function unreadFormat(mimeType: string, limits: Pick<ContentLimits, 'ocr'>): Extraction | undefined {
  if (isSupported(mimeType, limits.ocr.enabled) || hasPreview(mimeType)) return undefined;
  return { status: 'unsupported', error: `No text is read from ${mimeType} files.`, pages: null };
}

/** A stored version to read: its media type, size and a way to stream its bytes. */
export interface ExtractionSource {
  mimeType: string;
  size: number;
  stream(): Readable;
}

/**
 * Reads one version's text within `limits`. Never throws for a bad file: a damaged file, a zip
 * bomb or a tool that gives up is `failed` with the reason, a limit crossed `too_large`, a format
 * without a reader `unsupported`.
 */
export async function extractContent(
  source: ExtractionSource,
  limits: ContentLimits,
): Promise<Extraction & { previews?: Record<PreviewSize, Buffer> }> {
  const { mimeType } = source;
  const deadline = performance.now() + limits.timeoutMs;
  const previewable = hasPreview(mimeType);
  const unread = unreadFormat(mimeType, limits);
  if (unread) return unread;
  return inTemporaryDirectory(async (directory) => {
    const path = join(directory, 'file');
    await pipeline(source.stream(), createWriteStream(path, { mode: 0o600 }));
    const previews = previewable ? await renderPreviews(path, mimeType, deadline) : undefined;
    if (!isSupported(mimeType, limits.ocr.enabled)) {
      return { status: 'unsupported', error: `No text is read from ${mimeType} files.`, pages: null, previews };
    }
    return { ...(await extractFrom(path, source, limits, deadline)), previews };
  });
}

async function extractFrom(
  path: string,
  source: ExtractionSource,
  limits: ContentLimits,
  deadline: number,
): Promise<Extraction> {
  const { mimeType } = source;
  try {
    const read = await (async () => {
      if (mimeType === 'application/pdf') return extractPdf(path, limits, deadline);
      if (source.size > limits.maxUncompressedBytes) {
        throw new ExtractionError(
          'too_large',
          `The file is ${source.size} bytes, more than CONTENT_MAX_UNCOMPRESSED_BYTES (${limits.maxUncompressedBytes}).`,
        );
      }
      const bytes = await readFile(path);
      if (mimeType === DOCX || mimeType === ODT) {
        return {
          text: await extractOffice(mimeType === DOCX ? 'docx' : 'odt', bytes, limits.maxUncompressedBytes, deadline),
          pages: null,
        };
      }
      if (IMAGE_TYPES.has(mimeType)) return { text: await extractImage(bytes, limits, deadline), pages: 1 };
      const text = decodeText(bytes);
      if (mimeType === 'text/html') return { text: htmlToText(text), pages: null };
      if (XML_TYPES.has(mimeType)) return { text: xmlToText(text), pages: null };
      return { text, pages: null };
    })();
    return { status: 'indexed', text: tidyText(read.text, limits.maxChars), pages: read.pages };
  } catch (error) {
    if (error instanceof ExtractionError) return { status: error.status, error: error.message, pages: null };
    throw error;
  }
}
