// The files the extraction scenarios upload, made as test/support/content-files.ts makes the e2e
// tests' ones (a PDF written object by object; an image of text drawn by sharp from an SVG), but
// with many pages: a text PDF and a scanned one (each page only a JPEG of text, no text layer).
import sharp from 'sharp';
import { pdf, stream } from '../../test/support/content-files.js';
import { contentText } from './content-datagen.js';

/** Lines of about `width` characters of the bench's vocabulary (seeded: the same text every run). */
function lines(seed: number, count: number, width: number): string[] {
  const words = contentText(seed, count * width).split(/\s+/);
  const out: string[] = [];
  let line = '';
  for (const word of words) {
    if (line.length + word.length + 1 > width) {
      out.push(line);
      if (out.length === count) break;
      line = '';
    }
    line = line ? `${line} ${word}` : word;
  }
  return out;
}

/** Catalog, page tree and one page object per entry of `pages` (its resources and content stream). */
function pagedPdf(pages: { resources: string; content: Buffer; extra?: Buffer }[]): Buffer {
  // 1 catalog, 2 pages, then per page: the page, its content stream and (optionally) one more object.
  const objects: Buffer[] = [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'), Buffer.alloc(0)];
  const kids: number[] = [];
  for (const page of pages) {
    const pageNumber = objects.length + 1;
    kids.push(pageNumber);
    const extraNumber = pageNumber + 2;
    const resources = page.resources.replace('{extra}', `${extraNumber} 0 R`);
    objects.push(
      Buffer.from(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents ${pageNumber + 1} 0 R >>`,
      ),
      stream('', page.content),
    );
    if (page.extra) objects.push(page.extra);
  }
  objects[1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  return pdf(objects);
}

/** A PDF of `pageCount` Letter pages, each with a text layer of 40 lines (about 3 KB) in Helvetica. */
export function textPdf(pageCount: number, seed: number): Buffer {
  const font = '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>';
  return pagedPdf(
    Array.from({ length: pageCount }, (_, page) => {
      const text = lines(seed * 1000 + page, 40, 80)
        .map((line, index) => `${index === 0 ? '72 740 Td' : '0 -16 Td'} (${line.replace(/[()\\]/g, '\\$&')}) Tj`)
        .join('\n');
      return { resources: font, content: Buffer.from(`BT /F1 10 Tf\n${text}\nET`) };
    }),
  );
}

/** A page-sized grey JPEG of 30 lines of text (150 dpi Letter: 1275 x 1650 pixels), as a scanner makes. */
async function scannedPage(seed: number): Promise<Buffer> {
  const text = lines(seed, 30, 60)
    .map((line, index) => `<text x="120" y="${180 + index * 44}">${line}</text>`)
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="1275" height="1650"><rect width="100%" height="100%" fill="white"/>` +
    `<g font-family="DejaVu Sans, sans-serif" font-size="28" fill="black">${text}</g></svg>`;
  return sharp(Buffer.from(svg)).grayscale().jpeg({ quality: 85 }).toBuffer();
}

/** A PDF of `pageCount` pages that are only pictures of text: no text layer, OCR reads every page. */
export async function scannedPdf(pageCount: number, seed: number): Promise<Buffer> {
  const pages = [];
  for (let page = 0; page < pageCount; page++) {
    const jpeg = await scannedPage(seed * 1000 + page);
    pages.push({
      resources: '<< /XObject << /Im1 {extra} >> >>',
      content: Buffer.from('q 612 0 0 792 0 0 cm /Im1 Do Q'),
      extra: stream(
        '/Type /XObject /Subtype /Image /Width 1275 /Height 1650 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode',
        jpeg,
      ),
    });
  }
  return pagedPdf(pages);
}
