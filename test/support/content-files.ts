import { randomBytes } from 'node:crypto';
import JSZip from 'jszip';
import sharp, { type Sharp } from 'sharp';

/** A PDF from its objects (1-based, in order): header, objects, cross-reference table, trailer. */
export function pdf(objects: Buffer[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = chunks[0].length;
  objects.forEach((object, index) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    chunks.push(chunk);
    length += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(xref));
  return Buffer.concat(chunks);
}

export function stream(dictionary: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${bytes.length} >>\nstream\n`),
    bytes,
    Buffer.from('\nendstream'),
  ]);
}

const CATALOG = Buffer.from('<< /Type /Catalog /Pages 2 0 R >>');
const PAGES = Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');

/** A one-page PDF whose text layer says `text` (Helvetica, ASCII). */
export function textPdf(text: string): Buffer {
  const content = Buffer.from(`BT /F1 18 Tf 72 700 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`);
  return pdf([
    CATALOG,
    PAGES,
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    ),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    stream('', content),
  ]);
}

/** A PNG of `text`, black on white, large enough for OCR. */
export function textPng(text: string): Promise<Buffer> {
  return textImage(text).png().toBuffer();
}

function textImage(text: string): Sharp {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="1400" height="200"><rect width="100%" height="100%" fill="white"/>` +
    `<text x="40" y="120" font-family="DejaVu Sans, sans-serif" font-size="64" fill="black">${text}</text></svg>`;
  return sharp(Buffer.from(svg)).toColourspace('b-w');
}

/** A one-page PDF holding only a picture of `text`: no text layer, OCR reads it. */
export async function scannedPdf(text: string): Promise<Buffer> {
  const jpeg = await textImage(text).jpeg({ quality: 90 }).toBuffer();
  const { width, height } = await sharp(jpeg).metadata();
  return pdf([
    CATALOG,
    PAGES,
    Buffer.from(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>`,
    ),
    stream(
      `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode`,
      jpeg,
    ),
    stream('', Buffer.from(`q ${width} 0 0 ${height} 0 0 cm /Im1 Do Q`)),
  ]);
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A DOCX with one paragraph per entry of `paragraphs`; `extra` adds more entries (a zip bomb's filler). */
export async function docx(paragraphs: string[], extra: Record<string, Buffer> = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', RELS);
  zip.file(
    'word/document.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
      paragraphs.map((text) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`).join('') +
      '</w:body></w:document>',
  );
  for (const [name, bytes] of Object.entries(extra)) zip.file(name, bytes);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** A DOCX that unpacks to `bytes` of zeros more than its text: refused by CONTENT_MAX_UNCOMPRESSED_BYTES. */
export function docxBomb(bytes: number): Promise<Buffer> {
  return docx(['harmless looking'], { 'word/media/filler.bin': Buffer.alloc(bytes) });
}

/** Text as UTF-16LE with a byte order mark. */
export function utf16le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

/** Bytes no reader knows (and file-type recognises nothing in). */
export function unknownBinary(): Buffer {
  return Buffer.concat([Buffer.from([0x00, 0x01, 0x02, 0x03]), randomBytes(2048)]);
}
