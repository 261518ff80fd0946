/**
 * Content-addressed file store for document versions.
 *
 * Layout: `<root>/<aa>/<bb>/<sha256>` holds the bytes whose SHA-256 is `<sha256>` (`aa`, `bb` are
 * its first two bytes in hex, which spread files over 65,536 leaf directories); `<root>/tmp/`
 * holds writes in progress under random names. Identical bytes are stored once. No path is ever
 * built from client input: the only name that reaches the file system is a sha256 that was
 * checked to be 64 lower-case hex digits, or a name this class made.
 *
 * Write protocol: `begin()` opens a temporary file on the same file system as the store; `write()`
 * streams into it while hashing and counting (failing, and removing the file, as soon as the byte
 * limit is crossed) and fsyncs it at the end; `commit()` renames it to its content address and
 * fsyncs the directory, or drops it when that address exists already; `abort()` removes it.
 *
 * Ordering with the database (the rule the documents feature keeps, through StoredFiles):
 * 1. An upload registers its sha256 as pending (a committed pending_files row) before its file is
 *    placed, and the transaction that commits the row naming the file deletes that pending row.
 *    So a committed row always finds its bytes.
 * 2. No upload ever unlinks a final file, not even its own after a failure: two uploads of the
 *    same bytes cannot tell whose rename made the file. Files are removed only by the collector
 *    (StoredFiles.collect/sweep), which decides under database locks that no committed row and
 *    no fresh pending row names them. A crash between placing and committing leaves a file whose
 *    pending row goes stale; the next sweep collects it.
 * 3. A temporary file never outlives its request: a failed or interrupted write removes it, the
 *    upload reader aborts the pending write when the response closes, and `cleanTemporaryFiles()`
 *    (run at start-up, before requests are served) removes what a crash left behind. The start-up
 *    sweep assumes one service process owns the store directory.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiError } from '../common/errors/error-codes.js';

/** Injection token for the store's root directory (`STORAGE_DIR`). */
export const FILE_STORE_ROOT = Symbol('FILE_STORE_ROOT');

/** How many leading bytes a pending write keeps for content sniffing (file-type's recommended sample). */
export const HEAD_SAMPLE_BYTES = 4100;

/**
 * Read size of a download stream. Each chunk costs a read, a promise and a socket write on the
 * event loop; 1 MiB instead of the default 64 KiB cuts that 16-fold (bench: doc-download).
 */
const READ_CHUNK_BYTES = 1 << 20;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const TEMP_NAME = /^[0-9a-f]{32}\.tmp$/;

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

/** A full disk or quota (ENOSPC, EDQUOT) becomes 507 insufficient_storage; anything else stays as it is. */
export function storageFault(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new ApiError('insufficient_storage', 'The file store is full; nothing was kept. Try again later.');
  }
  return error;
}

/** A stored file opened for reading: its size as the file system reports it (fstat), and its bytes. */
export interface OpenedFile {
  size: number;
  /** A stream of the bytes (or of the inclusive `range`); it closes the file when it ends. */
  stream(range?: ByteRange): Readable;
  /** Closes the file; harmless after the stream closed it. */
  close(): Promise<void>;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Makes a rename or unlink inside `directory` durable. Windows cannot open a directory for fsync. */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

@Injectable()
export class FileStore implements OnModuleInit {
  readonly root: string;
  readonly tempDir: string;

  constructor(@Inject(FILE_STORE_ROOT) root: string) {
    this.root = resolve(root);
    this.tempDir = join(this.root, 'tmp');
  }

  /** Start-up: the store exists and nothing a previous process left half-written remains. */
  async onModuleInit(): Promise<void> {
    await this.cleanTemporaryFiles();
  }

  /** Where the bytes of `sha256` live. Throws on anything but 64 lower-case hex digits. */
  pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new TypeError('Not a sha256 (64 lower-case hex digits).');
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /** Opens a temporary file for one upload; commit() or abort() it. */
  async begin(options: BeginOptions = {}): Promise<PendingWrite> {
    await mkdir(this.tempDir, { recursive: true });
    const tempPath = join(this.tempDir, `${randomBytes(16).toString('hex')}.tmp`);
    // 'wx': never reuse or follow an existing entry; 0o600: the bytes are the owner's only.
    const handle = await open(tempPath, 'wx', 0o600).catch((error: unknown) => {
      throw storageFault(error);
    });
    return new PendingWrite(this, tempPath, handle, options.maxBytes ?? Number.POSITIVE_INFINITY);
  }

  /**
   * A read stream of the stored bytes (or of the inclusive `range`), with the file's full size;
   * undefined when no file has that sha256. A range beyond the file is a RangeError: ranges are
   * parsed against the size recorded with the document, which must be the file's.
   */
  async open(sha256: string, range?: ByteRange): Promise<StoredFileStream | undefined> {
    const path = this.pathOf(sha256);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (range && (range.start < 0 || range.start > range.end || range.end >= size)) {
        throw new RangeError(`Range ${range.start}-${range.end} is outside a file of ${size} bytes.`);
      }
      // The stream owns the handle from here and closes it when it ends or is destroyed.
      const stream = handle.createReadStream({ ...range, highWaterMark: READ_CHUNK_BYTES });
      return { stream, size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Opens the stored bytes of `sha256` with their size; undefined when no such file exists. */
  async openFile(sha256: string): Promise<OpenedFile | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(sha256), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return {
        size,
        stream: (range) => {
          if (range && (range.start < 0 || range.start > range.end || range.end >= size)) {
            throw new RangeError(`Range ${range.start}-${range.end} is outside a file of ${size} bytes.`);
          }
          return handle.createReadStream({ ...range, highWaterMark: READ_CHUNK_BYTES });
        },
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The stored size of `sha256`, or undefined when no such file exists. */
  async size(sha256: string): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(sha256))).size;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /**
   * Unlinks a stored file, durably. Only the collector (StoredFiles) calls this, after the
   * database said nothing names the file. Answers whether a file was removed.
   */
  async remove(sha256: string): Promise<boolean> {
    const path = this.pathOf(sha256);
    try {
      await unlink(path);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    await syncDirectory(dirname(path));
    return true;
  }

  /** Every sha256 stored under the root (not tmp/, nor any name this class did not make). */
  async *hashes(): AsyncGenerator<string> {
    const level = async (directory: string): Promise<string[]> => {
      try {
        return (await readdir(directory)).filter((name) => /^[0-9a-f]{2}$/.test(name)).sort();
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
    };
    for (const first of await level(this.root)) {
      for (const second of await level(join(this.root, first))) {
        const directory = join(this.root, first, second);
        for (const name of (await readdir(directory).catch(() => [] as string[])).sort()) {
          if (isSha256(name) && name.startsWith(first + second)) yield name;
        }
      }
    }
  }

  /** Removes every temporary file (start-up only: in-flight writes would lose theirs). Answers how many. */
  async cleanTemporaryFiles(): Promise<number> {
    await mkdir(this.tempDir, { recursive: true });
    let removed = 0;
    for (const name of await readdir(this.tempDir)) {
      if (!TEMP_NAME.test(name)) continue; // not ours; never delete what this class did not make
      try {
        await unlink(join(this.tempDir, name));
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  /**
   * Moves a fully written, fsynced temporary file to its content address (internal to PendingWrite).
   * When identical bytes are stored already, that file is kept and the temporary one dropped.
   */
  async place(tempPath: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    const directory = dirname(target);
    const created = await mkdir(directory, { recursive: true });
    if ((await this.size(sha256)) !== undefined) {
      await unlink(tempPath);
      return;
    }
    // A concurrent commit of the same bytes may win the race: rename then replaces a file with an
    // identical one, atomically, which readers cannot tell apart.
    await rename(tempPath, target);
    await syncDirectory(directory);
    // Directories mkdir just made must themselves be recorded in their parents.
    if (created) {
      const stop = dirname(created);
      for (let parent = dirname(directory); ; parent = dirname(parent)) {
        await syncDirectory(parent);
        if (parent === stop || parent === dirname(parent)) break;
      }
    }
  }
}

type PendingState = 'open' | 'writing' | 'written' | 'committed' | 'aborted';

/** One upload on its way into the store: write() once, then commit() or abort(). */
export class PendingWrite {
  private state: PendingState = 'open';
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private headChunks: Buffer[] = [];
  private headBytes = 0;
  private digest: string | undefined;
  private commitment: Promise<StoredFile> | undefined;
  private abortion: Promise<void> | undefined;

  constructor(
    private readonly store: FileStore,
    readonly tempPath: string,
    private readonly handle: FileHandle,
    readonly maxBytes: number,
  ) {}

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
      // flush: the stream fsyncs the file before it closes it, so a written file is a durable one.
      await pipeline(source, meter, this.handle.createWriteStream({ flush: true }));
    } catch (error) {
      await this.abort();
      throw storageFault(error);
    }
    if (this.state !== 'writing') throw new Error('The pending write was aborted while it was being written.');
    this.digest = this.hash.digest('hex');
    this.state = 'written';
  }

  /**
   * Moves the written (already fsynced) bytes to their content address, durably, and answers it.
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
      await this.store.place(this.tempPath, this.digest);
    } catch (error) {
      // Not abort(): that waits for this very commit.
      this.abortion ??= this.removeTemporaryFile();
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
    this.abortion ??= this.removeTemporaryFile();
    return this.abortion;
  }

  private async removeTemporaryFile(): Promise<void> {
    this.state = 'aborted';
    await this.handle.close(); // resolves at once when the write stream has closed it already
    try {
      await unlink(this.tempPath);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
}
