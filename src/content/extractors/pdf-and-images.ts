import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ExtractionError, type ContentLimits } from './extraction.js';
import { runTool } from './processes.js';

/** A page with fewer visible characters than this has no text layer worth keeping: it is read by OCR. */
const MIN_PAGE_CHARACTERS = 3;
/** Resolution of pages rendered for OCR. */
const OCR_DPI = 300;
/** Images larger than this many pixels are refused (sharp's decompression-bomb guard). */
const MAX_IMAGE_PIXELS = 100_000_000;

/** Runs `work` in a private temporary directory, removed afterwards. */
export async function inTemporaryDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'dms-content-'));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The page count pdfinfo reports. */
export async function pdfPageCount(path: string, deadline: number): Promise<number> {
  const info = (await runTool('pdfinfo', [path], deadline)).toString('utf8');
  const pages = /^Pages:\s+(\d+)/m.exec(info);
  if (!pages) throw new ExtractionError('failed', 'The PDF has no readable page count.');
  return Number(pages[1]);
}

/**
 * A PDF's text: its text layer by pdftotext, page by page; pages without one are rendered by
 * pdftoppm and read by tesseract when OCR is enabled.
 */
export async function extractPdf(
  path: string,
  limits: ContentLimits,
  deadline: number,
): Promise<{ text: string; pages: number }> {
  const pages = await pdfPageCount(path, deadline);
  if (pages > limits.maxPages) {
    throw new ExtractionError(
      'too_large',
      `The PDF has ${pages} pages, more than CONTENT_MAX_PAGES (${limits.maxPages}).`,
    );
  }
  const layer = (await runTool('pdftotext', ['-enc', 'UTF-8', '-l', String(pages), path, '-'], deadline)).toString(
    'utf8',
  );
  // pdftotext ends every page with a form feed.
  const texts = layer.split('\f').slice(0, pages);
  while (texts.length < pages) texts.push('');
  if (limits.ocr.enabled) {
    for (let page = 1; page <= pages; page++) {
      if (texts[page - 1].replace(/\s/g, '').length >= MIN_PAGE_CHARACTERS) continue;
      texts[page - 1] = await ocrPdfPage(path, page, limits, deadline);
    }
  }
  return { text: texts.join('\n\n'), pages };
}

async function ocrPdfPage(path: string, page: number, limits: ContentLimits, deadline: number): Promise<string> {
  return inTemporaryDirectory(async (directory) => {
    const prefix = join(directory, 'page');
    await runTool(
      'pdftoppm',
      ['-r', String(OCR_DPI), '-gray', '-png', '-f', String(page), '-l', String(page), path, prefix],
      deadline,
    );
    const [image] = (await readdir(directory)).filter((name) => name.endsWith('.png'));
    if (!image) return '';
    return ocrImageFile(join(directory, image), limits, deadline);
  });
}

/** Tesseract's reading of an image file. */
async function ocrImageFile(path: string, limits: ContentLimits, deadline: number): Promise<string> {
  return (await runTool('tesseract', [path, 'stdout', '-l', limits.ocr.languages], deadline)).toString('utf8');
}

/** An image's text by OCR: converted to grayscale PNG by sharp first (tesseract reads no WebP here). */
export async function extractImage(bytes: Buffer, limits: ContentLimits, deadline: number): Promise<string> {
  let png: Buffer;
  try {
    png = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).grayscale().png().toBuffer();
  } catch {
    throw new ExtractionError('failed', 'The image could not be decoded.');
  }
  return inTemporaryDirectory(async (directory) => {
    const path = join(directory, 'image.png');
    await writeFile(path, png);
    return ocrImageFile(path, limits, deadline);
  });
}
