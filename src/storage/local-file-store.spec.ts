import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileTooLargeError, HEAD_SAMPLE_BYTES, isSha256, TEMPORARY_FILE_MAX_AGE_MS } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Every file under `dir`, as paths relative to it (directories left out). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('LocalFileStore', () => {
  let root: string;
  let store: LocalFileStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'file-store-'));
    store = new LocalFileStore(root, 'instance-a');
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  async function storeBytes(bytes: Buffer | string) {
    const pending = await store.begin();
    await pending.write(Readable.from([Buffer.from(bytes)]));
    return pending.commit();
  }

  it('commits bytes at <root>/<aa>/<bb>/<sha256> and leaves nothing in tmp/', async () => {
    const bytes = randomBytes(300_000);
    const pending = await store.begin();
    await pending.write(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]));
    expect(pending.sha256).toBe(sha256Of(bytes));

    const stored = await pending.commit();

    const sha = sha256Of(bytes);
    expect(stored).toEqual({ sha256: sha, size: bytes.length });
    expect(await filesUnder(root)).toEqual([join(sha.slice(0, 2), sha.slice(2, 4), sha)]);
    expect(await readFile(store.pathOf(sha))).toEqual(bytes);
    expect(pending.committed).toBe(true);
  });

  it('stores identical bytes once', async () => {
    const first = await storeBytes('same bytes');

    const second = await storeBytes('same bytes');

    expect(second).toEqual(first);
    expect(await filesUnder(root)).toHaveLength(1);
  });

  it('never removes a placed file once a commit placed it: abort() after a raced commit keeps it', async () => {
    // Two uploads of the same bytes that both rename (neither saw the other's file) cannot tell
    // whose file it is; whatever the failing one does afterwards, the file stays for the other.
    const writes = await Promise.all([store.begin(), store.begin()]);
    await Promise.all(writes.map((pending) => pending.write(Readable.from([Buffer.from('shared')]))));
    await Promise.all(writes.map((pending) => pending.commit()));

    await Promise.all(writes.map((pending) => pending.abort()));

    expect(await readFile(store.pathOf(sha256Of('shared')), 'utf8')).toBe('shared');
  });

  it('lists the stored hashes, and nothing in tmp/ or that it did not make', async () => {
    const one = await storeBytes('one');
    const two = await storeBytes('two');
    const inFlight = await store.begin();
    await inFlight.write(Readable.from([Buffer.from('in flight')]));
    await writeFile(join(root, 'README'), 'not ours');

    const listed: string[] = [];
    for await (const sha of store.hashes()) listed.push(sha);

    expect(listed.sort()).toEqual([one.sha256, two.sha256].sort());
    await inFlight.abort();
  });

  it('stores identical bytes once when two commits race', async () => {
    const writes = await Promise.all([store.begin(), store.begin(), store.begin()]);
    await Promise.all(writes.map((pending) => pending.write(Readable.from([Buffer.from('raced')]))));

    const stored = await Promise.all(writes.map((pending) => pending.commit()));

    expect(new Set(stored.map((file) => file.sha256))).toEqual(new Set([sha256Of('raced')]));
    expect(await filesUnder(root)).toEqual([
      join(stored[0].sha256.slice(0, 2), stored[0].sha256.slice(2, 4), stored[0].sha256),
    ]);
  });

  it('abort() removes the temporary file, is repeatable, and does nothing after a commit', async () => {
    const pending = await store.begin();
    await pending.write(Readable.from([Buffer.from('draft')]));
    expect(await readdir(store.tempDir)).toHaveLength(1);

    await pending.abort();
    await pending.abort();

    expect(await filesUnder(root)).toEqual([]);
    await expect(pending.commit()).rejects.toThrow(/aborted/);

    const kept = await store.begin();
    await kept.write(Readable.from([Buffer.from('kept')]));
    const stored = await kept.commit();
    await kept.abort();
    expect(await readFile(store.pathOf(stored.sha256), 'utf8')).toBe('kept');
  });

  it('accepts exactly maxBytes', async () => {
    const pending = await store.begin({ maxBytes: 10 });
    await pending.write(Readable.from([Buffer.alloc(4), Buffer.alloc(6)]));
    await expect(pending.commit()).resolves.toMatchObject({ size: 10 });
  });

  it('fails as soon as the limit is crossed, without waiting for the rest, and keeps nothing', async () => {
    const pending = await store.begin({ maxBytes: 10 });
    // A source that would never end: only crossing the limit can settle the write.
    let pulls = 0;
    const endless = new Readable({
      highWaterMark: 1, // read only as fast as the store consumes
      read() {
        pulls++;
        this.push(Buffer.alloc(4));
      },
    });

    await expect(pending.write(endless)).rejects.toBeInstanceOf(FileTooLargeError);

    expect(pulls).toBeLessThan(10);
    expect(endless.destroyed).toBe(true);
    expect(await filesUnder(root)).toEqual([]);
    await expect(pending.commit()).rejects.toThrow(/aborted/);
  });

  it('removes the temporary file when the source fails mid-way', async () => {
    const pending = await store.begin();
    const failing = new Readable({ read() {} });
    failing.push(Buffer.alloc(1000));
    setImmediate(() => failing.destroy(new Error('client went away')));

    await expect(pending.write(failing)).rejects.toThrow('client went away');

    expect(await filesUnder(root)).toEqual([]);
  });

  it('refuses to commit before the write has finished', async () => {
    const pending = await store.begin();
    await expect(pending.commit()).rejects.toThrow(/open/);
    await pending.abort();
  });

  it('keeps the first bytes as a sample for content sniffing', async () => {
    const bytes = randomBytes(HEAD_SAMPLE_BYTES * 3);
    const pending = await store.begin();
    await pending.write(Readable.from([bytes.subarray(0, 7), bytes.subarray(7, 5000), bytes.subarray(5000)]));
    expect(pending.head).toEqual(bytes.subarray(0, HEAD_SAMPLE_BYTES));
    await pending.abort();

    const small = await store.begin();
    await small.write(Readable.from([Buffer.from('tiny')]));
    expect(small.head.toString()).toBe('tiny');
    await small.abort();
  });

  it('cleanTemporaryFiles() at start-up removes what this instance left in tmp/, and only that', async () => {
    const stored = await storeBytes('committed');
    const leftover = await store.begin();
    await leftover.write(Readable.from([Buffer.from('half an upload')]));
    await store.begin(); // opened, never written
    await writeFile(join(store.tempDir, 'README'), 'not made by the store');
    const other = new LocalFileStore(root, 'instance-b');
    const inFlight = await other.begin(); // another instance's upload in flight

    const restarted = new LocalFileStore(root, 'instance-a'); // the same instance, started again
    await expect(restarted.cleanTemporaryFiles({ startingUp: true })).resolves.toBe(2);

    expect(new Set(await readdir(store.tempDir))).toEqual(new Set(['README', inFlight.tempPath.split('/').pop()]));
    expect(await readFile(store.pathOf(stored.sha256), 'utf8')).toBe('committed');
    await inFlight.abort();
  });

  it("cleanTemporaryFiles() removes any instance's temporary file untouched for the age bound", async () => {
    const other = new LocalFileStore(root, 'instance-b');
    const old = await other.begin();
    const fresh = await other.begin();
    const past = new Date(Date.now() - TEMPORARY_FILE_MAX_AGE_MS - 60_000);
    await utimes(old.tempPath, past, past);
    await writeFile(join(store.tempDir, `${'a'.repeat(32)}.tmp`), "an earlier version's temporary file");
    await utimes(join(store.tempDir, `${'a'.repeat(32)}.tmp`), past, past);

    await expect(store.cleanTemporaryFiles()).resolves.toBe(2);

    expect(await readdir(store.tempDir)).toEqual([fresh.tempPath.split('/').pop()]);
    await fresh.abort();
  });

  it('onModuleInit() creates the store and cleans tmp/', async () => {
    const nested = new LocalFileStore(join(root, 'data', 'files'), 'instance-a');
    await nested.onModuleInit();
    expect(await readdir(nested.tempDir)).toEqual([]);
  });

  it('opens a stored file whole or by range, and answers undefined for an unknown sha256', async () => {
    const stored = await storeBytes('0123456789');

    const whole = await store.open(stored.sha256);
    expect(whole?.size).toBe(10);
    expect(await text(whole!.stream)).toBe('0123456789');

    const part = await store.open(stored.sha256, { start: 7, end: 9 });
    expect(part?.size).toBe(10);
    expect(await text(part!.stream)).toBe('789');

    await expect(store.open(stored.sha256, { start: 5, end: 10 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.open(sha256Of('never stored'))).resolves.toBeUndefined();
    await expect(store.size(stored.sha256)).resolves.toBe(10);
    await expect(store.size(sha256Of('never stored'))).resolves.toBeUndefined();
  });

  it.each(['ENOSPC', 'EDQUOT'])(
    'answers 507 insufficient_storage when the disk refuses a write (%s), and leaves nothing behind',
    async (code) => {
      const pending = await store.begin();
      // The file system's answer to a full disk, at the boundary: the temporary file's write stream.
      vi.spyOn((pending as unknown as { handle: FileHandle }).handle, 'createWriteStream').mockReturnValue(
        new Writable({
          write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('no space left'), { code })),
        }) as never,
      );

      const written = pending.write(Readable.from([Buffer.from('too much')]));

      await expect(written).rejects.toMatchObject({ code: 'insufficient_storage', status: 507 });
      expect(await filesUnder(root)).toEqual([]);
    },
  );

  it('answers 507 when the disk is full as the store places a file, and leaves nothing behind', async () => {
    const pending = await store.begin();
    await pending.write(Readable.from([Buffer.from('placed on a full disk')]));
    vi.spyOn(store, 'place').mockRejectedValue(Object.assign(new Error('no space left'), { code: 'ENOSPC' }));

    await expect(pending.commit()).rejects.toMatchObject({ code: 'insufficient_storage' });
    expect(await filesUnder(root)).toEqual([]);
  });

  it('opens a stored file with its fstat size, so a truncated file can be told before any header', async () => {
    const stored = await storeBytes('0123456789');
    await writeFile(store.pathOf(stored.sha256), '01234');

    await expect(store.size(stored.sha256)).resolves.toBe(5);
    const file = await store.open(stored.sha256, { start: 1, end: 2 });
    expect(file?.size).toBe(5);
    expect(await text(file!.stream)).toBe('12');
    await expect(store.open(stored.sha256, { start: 1, end: 7 })).rejects.toBeInstanceOf(RangeError);
  });

  it('removes a stored file', async () => {
    const stored = await storeBytes('purge me');

    await expect(store.remove(stored.sha256)).resolves.toBe(true);
    await expect(store.remove(stored.sha256)).resolves.toBe(false);
    await expect(store.open(stored.sha256)).resolves.toBeUndefined();
  });

  it.each([
    ['upper case', 'A'.repeat(64)],
    ['too short', 'a'.repeat(63)],
    ['too long', 'a'.repeat(65)],
    ['a path', `../../${'a'.repeat(58)}`],
    ['a trailing newline', `${'a'.repeat(64)}\n`],
    ['not hex', 'g'.repeat(64)],
    ['empty', ''],
  ])('refuses a sha256 that is %s before it becomes a path', async (_case, value) => {
    expect(isSha256(value)).toBe(false);
    expect(() => store.pathOf(value)).toThrow(TypeError);
    await expect(store.open(value)).rejects.toThrow(TypeError);
    await expect(store.remove(value)).rejects.toThrow(TypeError);
    await expect(store.size(value)).rejects.toThrow(TypeError);
  });
});
