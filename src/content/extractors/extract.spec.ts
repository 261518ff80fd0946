import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  docx,
  docxBomb,
  scannedPdf,
  textPdf,
  textPng,
  unknownBinary,
  utf16le,
} from '../../../test/support/content-files.js';
import { extractContent } from './extract.js';
import type { ContentLimits } from './extraction.js';

const LIMITS: ContentLimits = {
  maxChars: 1_000_000,
  maxPages: 1_000,
  timeoutMs: 60_000,
  maxUncompressedBytes: 5 * 1024 * 1024,
  ocr: { enabled: true, languages: 'eng' },
};

const read = (mimeType: string, bytes: Buffer, limits = LIMITS) =>
  extractContent({ mimeType, size: bytes.length, stream: () => Readable.from([bytes]) }, limits);

// Real child processes and a worker thread: seconds each on a loaded machine.
describe('extractContent (real tools: poppler, tesseract, mammoth)', { timeout: 120_000 }, () => {
  it('reads a PDF text layer', async () => {
    await expect(read('application/pdf', textPdf('The zephyrine clause applies'))).resolves.toMatchObject({
      status: 'indexed',
      pages: 1,
      text: expect.stringContaining('zephyrine'),
    });
  });

  it('reads a scanned PDF and a PNG by OCR', async () => {
    const scanned = await read('application/pdf', await scannedPdf('Invoice quokkaberry total'));
    expect(scanned).toMatchObject({ status: 'indexed', pages: 1 });
    expect((scanned as { text: string }).text.toLowerCase()).toContain('quokkaberry');
    const png = await read('image/png', await textPng('Receipt marmalite paid'));
    expect((png as { text: string }).text.toLowerCase()).toContain('marmalite');
  });

  it('reads a DOCX and refuses a zip bomb', async () => {
    await expect(read(DOCX, await docx(['Clause about', 'wombatine deliveries']))).resolves.toMatchObject({
      status: 'indexed',
      text: 'Clause about\n\nwombatine deliveries',
    });
    await expect(read(DOCX, await docxBomb(20 * 1024 * 1024))).resolves.toMatchObject({
      status: 'failed',
      error: expect.stringContaining('CONTENT_MAX_UNCOMPRESSED_BYTES'),
    });
  });

  it('decodes text formats', async () => {
    await expect(read('text/plain', utf16le('Grüße aus Köln'))).resolves.toMatchObject({ text: 'Grüße aus Köln' });
    await expect(
      read('text/html', Buffer.from('<p>Fish &amp; chips</p><script>nope()</script><p>caf&eacute;</p>')),
    ).resolves.toMatchObject({ text: 'Fish & chips\n\ncafé' });
  });

  it('marks what it cannot read', async () => {
    await expect(read('application/pdf', Buffer.from('%PDF-1.4 broken'))).resolves.toMatchObject({ status: 'failed' });
    await expect(read('application/octet-stream', unknownBinary())).resolves.toMatchObject({ status: 'unsupported' });
    await expect(
      read('image/png', await textPng('x'), { ...LIMITS, ocr: { enabled: false, languages: 'eng' } }),
    ).resolves.toMatchObject({
      status: 'unsupported',
    });
  });
});

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
