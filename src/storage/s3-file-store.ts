/** The file store in an S3-compatible bucket (STORAGE_DRIVER=s3); keys in docs/operations.md, "File storage". */
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { OnApplicationShutdown } from '@nestjs/common';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ApiError } from '../common/errors/error-codes.js';
import type { S3Settings } from '../config/object-storage.js';
import {
  FileStore,
  isSha256,
  PendingWrite,
  TEMPORARY_FILE_MAX_AGE_MS,
  type BeginOptions,
  type ByteRange,
  type DownloadHeaders,
  type StoredFileStream,
} from './file-store.js';

/** Lifetime of a presigned download URL: long enough to follow a redirect, short enough to leak little. */
export const PRESIGNED_URL_SECONDS = 60;

/** lib-storage's part size: S3's smallest allowed part, so an upload holds at most a few of them. */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/**
 * A file up to this size is kept in memory and PUT once to its content key: no temporary object,
 * no copy. The bound is what a multipart upload holds anyway (the parts in flight and the one filling).
 */
export const SINGLE_PUT_MAX_BYTES = PART_BYTES * (PARTS_IN_FLIGHT + 1);
const TEMP_PREFIX = 'tmp/';

/** An S3 client for `settings`, with checksums only where S3 requires them (see docs/operations.md). */
export function createS3Client(settings: S3Settings): S3Client {
  const config: S3ClientConfig = {
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    // The SDK's default CRC checksums send streaming bodies as aws-chunked, which several
    // S3-compatible servers (Swift's s3api among them) refuse with 501; the bytes are hashed anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (settings.endpoint) config.endpoint = settings.endpoint;
  if (settings.accessKeyId && settings.secretAccessKey) {
    config.credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey };
  }
  return new S3Client(config);
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return statusOf(error) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** An S3 that cannot be reached or answers 5xx is 503 to the client; anything else stays as it is. */
export function objectStorageFault(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const status = statusOf(error);
  const code = (error as { code?: string; name?: string } | null)?.code ?? (error as { name?: string })?.name;
  const unreachable = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'TimeoutError'];
  if ((status !== undefined && status >= 500) || (code !== undefined && unreachable.includes(code))) {
    return new ApiError(
      'service_unavailable',
      'The file storage is not answering; nothing was changed. Try again later.',
    );
  }
  return error;
}

/** The S3 driver of FileStore (see the header). */
export class S3FileStore extends FileStore implements OnApplicationShutdown {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly instanceId: string,
    private readonly presign = false,
  ) {
    super();
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }

  /** The key of the bytes of `sha256`. Throws on anything but 64 lower-case hex digits. */
  keyOf(sha256: string): string {
    if (!isSha256(sha256)) throw new TypeError('Not a sha256 (64 lower-case hex digits).');
    return sha256;
  }

  begin(options: BeginOptions = {}): Promise<PendingWrite> {
    const tempKey = `${TEMP_PREFIX}${this.instanceId}/${randomBytes(16).toString('hex')}.tmp`;
    return Promise.resolve(new S3PendingWrite(this, tempKey, options.maxBytes ?? Number.POSITIVE_INFINITY));
  }

  async open(sha256: string, range?: ByteRange): Promise<StoredFileStream | undefined> {
    const key = this.keyOf(sha256);
    if (range && (range.start < 0 || range.start > range.end)) {
      throw new RangeError(`Range ${range.start}-${range.end} is not a range.`);
    }
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = answer.Body as Readable;
      const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : answer.ContentLength;
      if (total === undefined || Number.isNaN(total)) {
        body.destroy();
        throw new Error('The object storage answered without a length.');
      }
      // S3 clamps a range past the end; a range the file cannot serve whole is the caller's RangeError.
      if (range && range.end >= total) {
        body.destroy();
        throw new RangeError(`Range ${range.start}-${range.end} is outside a file of ${total} bytes.`);
      }
      return { stream: body, size: total };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (statusOf(error) === 416) throw new RangeError(`Range ${range?.start}-${range?.end} is outside the file.`);
      throw objectStorageFault(error);
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    return this.sizeOfKey(this.keyOf(sha256));
  }

  async sizeOfKey(key: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw objectStorageFault(error);
    }
  }

  async remove(sha256: string): Promise<boolean> {
    const key = this.keyOf(sha256);
    // DeleteObject answers the same whether the key existed: the HEAD tells (for the collector's count).
    if ((await this.sizeOfKey(key)) === undefined) return false;
    await this.deleteKey(key);
    return true;
  }

  async deleteKey(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNotFound(error)) throw objectStorageFault(error);
    }
  }

  async *hashes(): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      // The delimiter folds tmp/… into one common prefix, so only top-level keys are listed.
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Delimiter: '/', ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key && isSha256(object.Key)) yield object.Key;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async cleanTemporaryFiles({ startingUp = false } = {}): Promise<number> {
    const staleBefore = Date.now() - TEMPORARY_FILE_MAX_AGE_MS;
    const removable = (key: string, time: Date | undefined): boolean => {
      const owner = key.slice(TEMP_PREFIX.length).split('/')[0];
      return (startingUp && owner === this.instanceId) || (time !== undefined && time.getTime() < staleBefore);
    };
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: TEMP_PREFIX, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key || !removable(object.Key, object.LastModified)) continue;
        await this.deleteKey(object.Key);
        removed++;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          Prefix: TEMP_PREFIX,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !removable(upload.Key, upload.Initiated)) continue;
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }))
          .catch((error: unknown) => {
            if (!isNotFound(error)) throw objectStorageFault(error);
          });
        removed++;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return removed;
  }

  override async presignedDownload(sha256: string, headers: DownloadHeaders): Promise<string | undefined> {
    if (!this.presign) return undefined;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.keyOf(sha256),
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition,
      ResponseCacheControl: 'private, no-cache',
    });
    return getSignedUrl(this.client, command, { expiresIn: PRESIGNED_URL_SECONDS });
  }

  /**
   * Places a written upload at the content key of `sha256`, unless that key exists: a small one by
   * one PUT of its bytes, a large one by a copy of its temporary object, which is then deleted.
   */
  async place(written: WrittenUpload, sha256: string): Promise<void> {
    const key = this.keyOf(sha256);
    try {
      // Two uploads of the same bytes may both write: identical bytes, which readers cannot tell apart.
      if ((await this.size(sha256)) === undefined) {
        if (written.bytes) {
          await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: written.bytes }));
        } else {
          const copySource = `${this.bucket}/${written.tempKey}`;
          await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: key, CopySource: copySource }));
        }
      }
    } catch (error) {
      throw objectStorageFault(error);
    }
    if (!written.bytes) await this.deleteKey(written.tempKey);
  }
}

/** A received upload: its bytes in memory (a small file) or in its temporary object. */
export interface WrittenUpload {
  tempKey: string;
  bytes?: Buffer;
}

/**
 * An upload into an S3FileStore. A file of at most SINGLE_PUT_MAX_BYTES stays in memory until its
 * hash is known and is then PUT once to its content key (no temporary object, no copy); a larger
 * one is streamed to its temporary key as a multipart upload, then copied.
 */
class S3PendingWrite extends PendingWrite {
  private body: PassThrough | undefined;
  private receiving: Promise<unknown> | undefined;
  private readonly written: WrittenUpload;

  constructor(
    private readonly store: S3FileStore,
    readonly tempKey: string,
    maxBytes: number,
  ) {
    super(maxBytes);
    this.written = { tempKey };
  }

  protected async receive(source: Readable | AsyncIterable<Uint8Array>, meter: Transform): Promise<void> {
    const body = new PassThrough({ highWaterMark: 1 << 20 });
    this.body = body;
    const streamed = pipeline(source, meter, body);
    const results = Promise.allSettled([streamed, this.receiveParts(body)]);
    this.receiving = results;
    const [piped, stored] = await results;
    if (piped.status === 'rejected') throw objectStorageFault(piped.reason);
    if (stored.status === 'rejected') throw objectStorageFault(stored.reason);
  }

  /** Reads up to SINGLE_PUT_MAX_BYTES; a stream that ends within them is kept in memory, a longer one uploaded. */
  private async receiveParts(body: PassThrough): Promise<void> {
    const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first: Buffer[] = [];
    let length = 0;
    while (length <= SINGLE_PUT_MAX_BYTES) {
      const next = await chunks.next();
      if (next.done) {
        this.written.bytes = Buffer.concat(first);
        return;
      }
      first.push(next.value);
      length += next.value.length;
    }
    async function* rest(): AsyncGenerator<Buffer> {
      // Shifted out, so that each chunk is freed once the upload has taken it.
      for (let chunk = first.shift(); chunk; chunk = first.shift()) yield chunk;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    }
    const upload = new Upload({
      client: this.store.client,
      params: { Bucket: this.store.bucket, Key: this.tempKey, Body: Readable.from(rest()) },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    // A failed upload must stop the stream feeding it; a failed stream fails the upload (its
    // iteration throws), which then aborts its multipart upload before done() settles.
    await upload.done().catch((error: unknown) => {
      body.destroy(error as Error);
      throw error;
    });
  }

  protected place(sha256: string): Promise<void> {
    return this.store.place(this.written, sha256);
  }

  protected async discard(): Promise<void> {
    // An upload still running is stopped through its stream and awaited, so that no part or PUT
    // lands after the temporary key is deleted.
    this.body?.destroy(new Error('The upload was aborted.'));
    await this.receiving;
    this.written.bytes = undefined;
    await this.store.deleteKey(this.tempKey);
  }
}
