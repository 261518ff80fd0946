/**
 * The content-addressed store of document files, behind one interface with two implementations:
 * LocalFileStore (a directory, the default) and S3FileStore (an S3-compatible bucket), chosen by
 * STORAGE_DRIVER. Identical bytes are stored once, under their SHA-256; nothing built from client
 * input ever names a stored file.
 *
 * Write protocol, the same for both: `begin()` opens a temporary file (object) named with this
 * instance's id; `write()` streams into it while hashing and counting, failing (and removing it)
 * as soon as the byte limit is crossed; `commit()` moves it to its content address, or drops it
 * when that address exists already; `abort()` removes it.
 *
 * Ordering with the database (the rule the documents feature keeps, through StoredFiles):
 * 1. An upload registers its sha256 as pending (a committed pending_files row) before its file is
 *    placed, and the transaction that commits the row naming the file deletes that pending row.
 *    So a committed row always finds its bytes.
 * 2. No upload ever removes a final file, not even its own after a failure: two uploads of the
 *    same bytes cannot tell whose commit placed it. Files are removed only by the collector
 *    (StoredFiles.collect/sweep), which decides under database locks that no committed row and
 *    no fresh pending row names them. A crash between placing and committing leaves a file whose
 *    pending row goes stale; the next sweep collects it.
 * 3. A temporary file never outlives its request: a failed or interrupted write removes it, and
 *    the upload reader aborts the pending write when the response closes. What a crash leaves is
 *    removed by `cleanTemporaryFiles()`: at start-up, the files of this instance id (a restarted
 *    instance with a fixed INSTANCE_ID), and at start-up and on every sweep the files of any
 *    instance untouched for TEMPORARY_FILE_MAX_AGE_MS. Instances sharing a store never remove
 *    each other's uploads in flight.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { OnModuleInit } from '@nestjs/common';
import { ApiError } from '../common/errors/error-codes.js';

/** How many leading bytes a pending write keeps for content sniffing (file-type's recommended sample). */
export const HEAD_SAMPLE_BYTES = 4100;

/** A temporary file of another instance is left alone until it has been untouched this long. */
export const TEMPORARY_FILE_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function isSha256(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** Raised by a pending write as soon as the stream crosses its byte limit. */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
  }
}

export interface StoredFile {
  sha256: string;
  size: number;
}

/** An inclusive byte range, as `parseRange()` returns it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFileStream {
  stream: Readable;
  /** Size of the whole stored file (not of the range). */
  size: number;
}

export interface BeginOptions {
  /** The write fails with FileTooLargeError as soon as more than this many bytes arrive. */
  maxBytes?: number;
}

/** What a presigned download URL answers with (S3 only). */
export interface DownloadHeaders {
  contentType: string;
  contentDisposition: string;
}

/** A full disk or quota (ENOSPC, EDQUOT) becomes 507 insufficient_storage; anything else stays as it is. */
export function storageFault(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new ApiError('insufficient_storage', 'The file store is full; nothing was kept. Try again later.');
  }
  return error;
}

/** The store both drivers implement; injected by this abstract class. */
export abstract class FileStore implements OnModuleInit {
  /** Start-up: nothing this instance (or a long-gone one) left half-written remains. */
  async onModuleInit(): Promise<void> {
    await this.cleanTemporaryFiles({ startingUp: true });
  }

  /** Opens a temporary file for one upload; commit() or abort() it. */
  abstract begin(options?: BeginOptions): Promise<PendingWrite>;

  /**
   * A read stream of the stored bytes (or of the inclusive `range`), with the file's full size;
   * undefined when no file has that sha256. A range beyond the file is a RangeError: ranges are
   * parsed against the size recorded with the document, which must be the file's.
   */
  abstract open(sha256: string, range?: ByteRange): Promise<StoredFileStream | undefined>;

  /** The stored size of `sha256`, or undefined when no such file exists. */
  abstract size(sha256: string): Promise<number | undefined>;

  /**
   * Removes a stored file, durably. Only the collector (StoredFiles) calls this, after the
   * database said nothing names the file. Answers whether a file was removed.
   */
  abstract remove(sha256: string): Promise<boolean>;

  /** Every sha256 stored (not temporary files, nor any name this store did not make). */
  abstract hashes(): AsyncGenerator<string>;

  /**
   * Removes temporary files that no upload in flight can own: this instance's at start-up
   * (`startingUp`), and any instance's untouched for TEMPORARY_FILE_MAX_AGE_MS. Answers how many.
   */
  abstract cleanTemporaryFiles(options?: { startingUp?: boolean }): Promise<number>;

  /** A short-lived URL the client may download the bytes from directly, when the driver has one. */
  presignedDownload(_sha256: string, _headers: DownloadHeaders): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}

type PendingState = 'open' | 'writing' | 'written' | 'committed' | 'aborted';

/**
 * One upload on its way into the store: write() once, then commit() or abort(). The metering,
 * hashing and state rules live here; a driver supplies where the bytes go.
 */
export abstract class PendingWrite {
  private state: PendingState = 'open';
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private headChunks: Buffer[] = [];
  private headBytes = 0;
  private digest: string | undefined;
  private commitment: Promise<StoredFile> | undefined;
  private abortion: Promise<void> | undefined;

  constructor(readonly maxBytes: number) {}

  /**
   * Streams `source` through `meter` (which counts, hashes and enforces the limit) into the
   * temporary file, durably; rejects on any failure, leaving the cleanup to discard().
   */
  protected abstract receive(source: Readable | AsyncIterable<Uint8Array>, meter: Transform): Promise<void>;
  /** Moves the written temporary file to the content address of `sha256` (or drops it if one exists). */
  protected abstract place(sha256: string): Promise<void>;
  /** Removes the temporary file and whatever a half-done receive() left; idempotent. */
  protected abstract discard(): Promise<void>;

  /** Bytes received so far. */
  get size(): number {
    return this.bytes;
  }

  /** The first HEAD_SAMPLE_BYTES bytes (fewer for a smaller file), for content sniffing. */
  get head(): Buffer {
    if (this.headChunks.length !== 1) this.headChunks = [Buffer.concat(this.headChunks)];
    return this.headChunks[0];
  }

  /** The SHA-256 of what was written; available once write() has resolved. */
  get sha256(): string {
    if (this.digest === undefined) throw new Error('The write has not finished.');
    return this.digest;
  }

  get committed(): boolean {
    return this.state === 'committed';
  }

  /**
   * Streams `source` into the temporary file, hashing and counting as it goes. On any failure
   * (source error, client gone, FileTooLargeError as soon as the limit is crossed) the temporary
   * file is removed before the promise rejects.
   */
  async write(source: Readable | AsyncIterable<Uint8Array>): Promise<void> {
    if (this.state !== 'open') throw new Error(`Cannot write to a pending write that is ${this.state}.`);
    this.state = 'writing';
    const meter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.bytes += chunk.length;
        if (this.bytes > this.maxBytes) {
          callback(new FileTooLargeError(this.maxBytes));
          return;
        }
        this.hash.update(chunk);
        if (this.headBytes < HEAD_SAMPLE_BYTES) {
          const slice = chunk.subarray(0, HEAD_SAMPLE_BYTES - this.headBytes);
          // A copy: the sample must not pin the (possibly large, pooled) chunk it came from.
          this.headChunks.push(Buffer.from(slice));
          this.headBytes += slice.length;
        }
        callback(null, chunk);
      },
    });
    try {
      await this.receive(source, meter);
    } catch (error) {
      await this.abort();
      throw storageFault(error);
    }
    if (this.state !== 'writing') throw new Error('The pending write was aborted while it was being written.');
    this.digest = this.hash.digest('hex');
    this.state = 'written';
  }

  /**
   * Moves the written (already durable) bytes to their content address and answers it.
   * Idempotent; after it resolves, abort() does nothing, and nothing of this write ever removes
   * the placed file (see the header: only the collector does).
   */
  commit(): Promise<StoredFile> {
    this.commitment ??= this.commitOnce();
    return this.commitment;
  }

  private async commitOnce(): Promise<StoredFile> {
    if (this.state !== 'written' || this.digest === undefined) {
      throw new Error(`Cannot commit a pending write that is ${this.state}.`);
    }
    try {
      await this.place(this.digest);
    } catch (error) {
      // Not abort(): that waits for this very commit.
      this.abortion ??= this.discardOnce();
      await this.abortion;
      throw storageFault(error);
    }
    this.state = 'committed';
    return { sha256: this.digest, size: this.bytes };
  }

  /** Removes the temporary file. Safe to call any number of times, and a no-op once committed. */
  async abort(): Promise<void> {
    if (this.commitment && this.state !== 'aborted') {
      // Let a commit in flight finish: afterwards its file is either placed (keep) or gone.
      await this.commitment.catch(() => undefined);
    }
    if (this.state === 'committed') return;
    this.abortion ??= this.discardOnce();
    return this.abortion;
  }

  private async discardOnce(): Promise<void> {
    this.state = 'aborted';
    await this.discard();
  }
}
