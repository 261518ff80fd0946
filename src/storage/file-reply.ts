import type { Readable } from 'node:stream';
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
import type { ByteRange, DownloadHeaders } from './file-store.js';

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

/** The stored bytes of a download, each call checked against the row (500 file_unavailable). */
export interface StoredFileSource {
  /** That the bytes are there, for answers without a body (HEAD, 304, 416). */
  check(): Promise<void>;
  open(range?: ByteRange): Promise<Readable>;
  /** A short-lived URL of the bytes to redirect a GET to (S3_PRESIGNED_DOWNLOADS), or undefined. */
  presignedUrl?(headers: DownloadHeaders): Promise<string | undefined>;
}

/**
 * The one download answer (authenticated content route and share links): 304, 416, 206 or 200
 * with the safety, validator and range headers, a body only when `withBody`; or a 302 to a
 * presigned URL. The range is decided before storage is touched; `headers` adds to the answer's.
 */
export async function sendStoredFile(
  source: StoredFileSource,
  described: DownloadedFile,
  request: FastifyRequest,
  reply: FastifyReply,
  { withBody, headers = {} }: { withBody: boolean; headers?: Record<string, string> },
): Promise<void> {
  const etag = entityTag(described.sha256);
  const size = described.fileSize;
  const common = {
    ...DOWNLOAD_SAFETY,
    etag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
    ...headers,
  };
  if (ifNoneMatchSatisfied(request.headers['if-none-match'], etag)) {
    await source.check();
    await reply.headers(common).code(304).send();
    return;
  }
  const ifRange = request.headers['if-range'];
  // A repeated If-Range is no valid validator: the whole file, as for one that does not match.
  const range =
    ifRange === undefined || (typeof ifRange === 'string' && ifRangeAllowsRange(ifRange, etag))
      ? parseRange(request.headers.range, size)
      : { kind: 'whole' as const };
  if (range.kind === 'unsatisfiable') {
    await source.check();
    throw new ApiError(
      'range_not_satisfiable',
      `The file has ${size} bytes; ask for a range that starts within them.`,
      {
        ...common,
        'content-range': contentRange(range, size)!,
      },
    );
  }
  const disposition = contentDisposition(described.fileName);
  const url = withBody
    ? await source.presignedUrl?.({ contentType: described.mimeType, contentDisposition: disposition })
    : undefined;
  if (url) {
    await reply.headers({ 'cache-control': 'private, no-cache', ...headers }).redirect(url, 302);
    return;
  }
  let body: Readable | undefined;
  if (withBody) body = await source.open(range.kind === 'partial' ? range : undefined);
  else await source.check();
  reply.raw.once('close', () => body?.destroy());
  void reply.headers(common).type(described.mimeType).header('content-disposition', disposition);
  if (range.kind === 'partial') void reply.code(206).header('content-range', contentRange(range, size));
  const length = range.kind === 'partial' ? range.end - range.start + 1 : size;
  void reply.header('content-length', String(length));
  await reply.send(body);
}
