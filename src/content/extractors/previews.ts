import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { PREVIEW_SIZES, type PreviewSize } from '../entities/document-preview.entity.js';
import { inTemporaryDirectory } from './pdf-and-images.js';
import { runTool } from './processes.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/tiff', 'image/webp', 'image/gif']);
const MAX_IMAGE_PIXELS = 100_000_000;

/** Formats with a preview: PDFs (first page) and images. */
export function hasPreview(mimeType: string): boolean {
  return mimeType === 'application/pdf' || IMAGE_TYPES.has(mimeType);
}

/**
 * PNGs of a PDF's first page (pdftoppm) or of an image (sharp), no larger than PREVIEW_SIZES on
 * their long side; undefined when the file cannot be drawn.
 */
export async function renderPreviews(
  path: string,
  mimeType: string,
  deadline: number,
): Promise<Record<PreviewSize, Buffer> | undefined> {
  try {
    let source: Buffer;
    if (mimeType === 'application/pdf') {
      source = await inTemporaryDirectory(async (directory) => {
        const out = join(directory, 'page');
        const scale = String(PREVIEW_SIZES.large);
        await runTool(
          'pdftoppm',
          ['-png', '-f', '1', '-l', '1', '-singlefile', '-scale-to', scale, path, out],
          deadline,
        );
        return readFile(`${out}.png`);
      });
    } else {
      source = await readFile(path);
    }
    const draw = (size: PreviewSize) =>
      sharp(source, { limitInputPixels: MAX_IMAGE_PIXELS })
        .rotate()
        .resize(PREVIEW_SIZES[size], PREVIEW_SIZES[size], { fit: 'inside', withoutEnlargement: true })
        .png()
        .toBuffer();
    return { small: await draw('small'), large: await draw('large') };
  } catch {
    return undefined;
  }
}
