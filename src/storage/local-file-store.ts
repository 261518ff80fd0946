/** The file store in a directory (STORAGE_DRIVER=fs); layout in docs/operations.md, "File storage". */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  FileStore,
  isSha256,
  PendingWrite,
  storageFault,
  TEMPORARY_FILE_MAX_AGE_MS,
  type BeginOptions,
  type ByteRange,
  type StoredFileStream,
} from './file-store.js';

/**
 * Read size of a download stream. Each chunk costs a read, a promise and a socket write on the
 * event loop; 1 MiB instead of the default 64 KiB cuts that 16-fold (bench: doc-download).
 */
const READ_CHUNK_BYTES = 1 << 20;

/** `<instance id>.<32 hex>.tmp`; the bare `<32 hex>.tmp` of earlier versions has no owner. */
const TEMP_NAME = /^(?:([A-Za-z0-9_-]{1,64})\.)?[0-9a-f]{32}\.tmp$/;

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

/** The local driver of FileStore (see the header). */
export class LocalFileStore extends FileStore {
  readonly root: string;
  readonly tempDir: string;

  /** `instanceId` names this instance's temporary files; see FileStore.cleanTemporaryFiles. */
  constructor(
    root: string,
    readonly instanceId: string,
  ) {
    super();
    this.root = resolve(root);
    this.tempDir = join(this.root, 'tmp');
  }

  /** Where the bytes of `sha256` live. Throws on anything but 64 lower-case hex digits. */
  pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new TypeError('Not a sha256 (64 lower-case hex digits).');
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async begin(options: BeginOptions = {}): Promise<LocalPendingWrite> {
    await mkdir(this.tempDir, { recursive: true });
    const tempPath = join(this.tempDir, `${this.instanceId}.${randomBytes(16).toString('hex')}.tmp`);
    // 'wx': never reuse or follow an existing entry; 0o600: the bytes are the owner's only.
    const handle = await open(tempPath, 'wx', 0o600).catch((error: unknown) => {
      throw storageFault(error);
    });
    return new LocalPendingWrite(this, tempPath, handle, options.maxBytes ?? Number.POSITIVE_INFINITY);
  }

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
      // Bounded by the file's end: a small file gets a buffer of its size, and no read looks for EOF.
      const bounds = range ?? (size > 0 ? { start: 0, end: size - 1 } : {});
      // The stream owns the handle from here and closes it when it ends or is destroyed.
      const stream = handle.createReadStream({ ...bounds, highWaterMark: READ_CHUNK_BYTES });
      return { stream, size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(sha256))).size;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

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

  async cleanTemporaryFiles({ startingUp = false } = {}): Promise<number> {
    await mkdir(this.tempDir, { recursive: true });
    const staleBefore = Date.now() - TEMPORARY_FILE_MAX_AGE_MS;
    let removed = 0;
    for (const name of await readdir(this.tempDir)) {
      const match = TEMP_NAME.exec(name);
      if (!match) continue; // not ours; never delete what this class did not make
      const path = join(this.tempDir, name);
      try {
        const own = startingUp && match[1] === this.instanceId;
        if (!own && (await stat(path)).mtimeMs >= staleBefore) continue;
        await unlink(path);
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  /**
   * Moves a fully written, fsynced temporary file to its content address (internal to the pending write).
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

/** An upload into tmp/ of a LocalFileStore. */
export class LocalPendingWrite extends PendingWrite {
  constructor(
    private readonly store: LocalFileStore,
    readonly tempPath: string,
    private readonly handle: FileHandle,
    maxBytes: number,
  ) {
    super(maxBytes);
  }

  protected async receive(source: Readable | AsyncIterable<Uint8Array>, meter: Transform): Promise<void> {
    // flush: the stream fsyncs the file before it closes it, so a written file is a durable one.
    await pipeline(source, meter, this.handle.createWriteStream({ flush: true }));
  }

  protected place(sha256: string): Promise<void> {
    return this.store.place(this.tempPath, sha256);
  }

  protected async discard(): Promise<void> {
    await this.handle.close(); // resolves at once when the write stream has closed it already
    try {
      await unlink(this.tempPath);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
}
