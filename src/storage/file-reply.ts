import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/error-codes.js';
import {
  contentDisposition,
  contentRange,
  entityTag,
  ifNoneMatchSatisfied,
  ifRangeAllowsRange,
  parseRange,
} from './content-response.js';
import type { OpenedFile } from './file-store.js';

/** Headers that keep a downloaded file from running as this site (HTML, SVG) or being sniffed. */
export const DOWNLOAD_SAFETY = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
};

/** What a download names: the stored bytes (by sha256) and how they are presented. */
export interface DownloadedFile {
  sha256: string;
  fileSize: number;
  mimeType: string;
  fileName: string;
}

/**
 * The one download answer (authenticated content route and share links): 304, 416, 206 or 200
 * with the safety, validator and range headers; a body only when `withBody`. `headers` adds to them.
 */
export async function sendStoredFile(
  file: OpenedFile,
  described: DownloadedFile,
  request: FastifyRequest,
  reply: FastifyReply,
  { withBody, headers = {} }: { withBody: boolean; headers?: Record<string, string> },
): Promise<void> {
  reply.raw.once('close', () => {
    file.close().catch(() => undefined);
  });
  const etag = entityTag(described.sha256);
  const size = described.fileSize;
  void reply.headers({
    ...DOWNLOAD_SAFETY,
    etag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
    ...headers,
  });
  if (ifNoneMatchSatisfied(request.headers['if-none-match'], etag)) {
    await reply.code(304).send();
    return;
  }
  const ifRange = request.headers['if-range'];
  // A repeated If-Range is no valid validator: the whole file, as for one that does not match.
  const range =
    ifRange === undefined || (typeof ifRange === 'string' && ifRangeAllowsRange(ifRange, etag))
      ? parseRange(request.headers.range, size)
      : { kind: 'whole' as const };
  if (range.kind === 'unsatisfiable') {
    throw new ApiError(
      'range_not_satisfiable',
      `The file has ${size} bytes; ask for a range that starts within them.`,
      {
        'content-range': contentRange(range, size)!,
      },
    );
  }
  void reply.type(described.mimeType).header('content-disposition', contentDisposition(described.fileName));
  if (range.kind === 'partial') {
    void reply.code(206).header('content-range', contentRange(range, size));
  }
  const length = range.kind === 'partial' ? range.end - range.start + 1 : size;
  void reply.header('content-length', String(length));
  if (!withBody) {
    await reply.send();
    return;
  }
  await reply.send(file.stream(range.kind === 'partial' ? range : undefined));
}
