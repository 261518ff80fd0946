import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ExtractionError } from './extraction.js';

const require = createRequire(import.meta.url);

/** Heap of one office worker: a document that needs more fails instead of taking the service down. */
const WORKER_HEAP_MB = 256;

/**
 * The worker's program (plain JavaScript: it runs as given, in the service and under the tests).
 * It sums the uncompressed sizes the ZIP's central directory declares (JSZip's loaded entries)
 * before inflating anything, then reads the text: DOCX with mammoth, ODT from content.xml.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const JSZip = require(workerData.jszip);
const mammoth = require(workerData.mammoth);
(async () => {
  try {
    const zip = await JSZip.loadAsync(workerData.bytes);
    let total = 0;
    for (const entry of Object.values(zip.files)) {
      const size = entry._data && entry._data.uncompressedSize;
      total += typeof size === 'number' ? size : 0;
    }
    if (total > workerData.maxUncompressedBytes) {
      parentPort.postMessage({ refused: 'The archive unpacks to ' + total + ' bytes, more than CONTENT_MAX_UNCOMPRESSED_BYTES (' + workerData.maxUncompressedBytes + ').' });
      return;
    }
    if (workerData.format === 'docx') {
      const result = await mammoth.extractRawText({ buffer: Buffer.from(workerData.bytes) });
      parentPort.postMessage({ text: result.value });
      return;
    }
    const content = zip.file('content.xml');
    if (!content) throw new Error('no content.xml');
    const xml = await content.async('string');
    const text = xml
      .replace(/<text:(?:p|h|line-break|list-item)\\b[^>]*>/g, '\\n')
      .replace(/<text:tab\\b[^>]*>/g, '\\t')
      .replace(/<text:s\\b[^>]*>/g, ' ')
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'")
      .replace(/&#(x?)([0-9a-fA-F]+);/g, (_m, hex, digits) => String.fromCodePoint(parseInt(digits, hex ? 16 : 10)))
      .replace(/&amp;/g, '&');
    parentPort.postMessage({ text });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error).slice(0, 200) });
  }
})();
`;

/**
 * A DOCX's or ODT's text, read in a worker thread with a bounded heap, terminated at `deadline`.
 * A zip bomb (declared or real: the heap bound) and a damaged file end as failed.
 */
export function extractOffice(
  format: 'docx' | 'odt',
  bytes: Uint8Array,
  maxUncompressedBytes: number,
  deadline: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        format,
        bytes,
        maxUncompressedBytes,
        jszip: require.resolve('jszip'),
        mammoth: require.resolve('mammoth'),
      },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new ExtractionError('failed', 'Reading the file took too long.'))),
      Math.max(0, deadline - performance.now()),
    );
    worker.on('message', (message: { text?: string; refused?: string; error?: string }) => {
      if (message.text !== undefined) finish(() => resolve(message.text!));
      else if (message.refused) finish(() => reject(new ExtractionError('failed', message.refused!)));
      else
        finish(() =>
          reject(
            new ExtractionError('failed', `The ${format.toUpperCase()} file could not be read: ${message.error}.`),
          ),
        );
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const reason =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'Reading the file needed more memory than allowed (a zip bomb?).'
          : `The ${format.toUpperCase()} file could not be read.`;
      finish(() => reject(new ExtractionError('failed', reason)));
    });
    worker.on('exit', () =>
      finish(() => reject(new ExtractionError('failed', `The ${format.toUpperCase()} file could not be read.`))),
    );
  });
}
