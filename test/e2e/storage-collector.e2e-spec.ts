// Stored files against the database (issue 30 #1, #6): an upload's failure never removes bytes a
// committed row or an upload in flight names, and unnamed bytes are collected at once.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentFilesService } from '../../src/documents/document-files.service.js';
import { TrashPurgeScheduler } from '../../src/documents/trash-purge.scheduler.js';
import { PendingFile } from '../../src/storage/entities/pending-file.entity.js';
import { FileStore } from '../../src/storage/file-store.js';
import { StoredFiles } from '../../src/storage/stored-files.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart, type Part } from '../support/uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe.each(storageSetupsUnderTest())('stored files and their rows on $kind, $driver driver', ({ kind, driver }) => {
  let t: TestApp;
  let token: string;
  let projectId: string;
  let typeId: string;

  /** Either driver's store, by the step both have: placing a written temporary file at its address. */
  const store = () => t.app.get<FileStore, FileStore & { place(temp: string, sha: string): Promise<void> }>(FileStore);
  const stored = (sha: string) => t.stored.has(sha);
  const fileOf = (bytes: Buffer): Part => ({ name: 'file', fileName: 'f.bin', bytes });
  const create = (bytes: Buffer) =>
    sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'projectId', value: projectId },
      { name: 'documentTypeId', value: typeId },
      fileOf(bytes),
    ]);
  /** A version upload whose If-Match is stale: refused (412) only in its transaction, after its file was placed. */
  const failingVersion = (documentId: string, bytes: Buffer) =>
    sendMultipart(`${t.url}/api/documents/${documentId}/versions`, token, [fileOf(bytes)], { 'if-match': '"v99"' });
  const download = async (documentId: string) => {
    const response = await fetch(`${t.url}/api/documents/${documentId}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  /** A stored file with no row and no pending row (what a kill -9 after the rename leaves). */
  const orphan = async (): Promise<string> => {
    const bytes = randomBytes(48);
    const sha = sha256(bytes);
    await t.stored.write(sha, bytes);
    return sha;
  };
  const pendingRow = (sha: string, createdAt = new Date()) =>
    t.dataSource.getRepository(PendingFile).insert({ id: randomUUID(), sha256: sha, createdAt });
  const pendingCount = async () => t.dataSource.getRepository(PendingFile).count();

  beforeAll(async () => {
    t = await createTestApp(kind, { STORAGE_DRIVER: driver });
    // The suite runs the collector itself.
    t.app.get(TrashPurgeScheduler).onApplicationShutdown();
    token = await t.login('admin');
    projectId = t.seed.projects[0].id;
    typeId = t.seed.documentTypes[0].id;
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Lets a version upload with a stale If-Match through the pre-check, so it fails after placing its file. */
  const skipVersionPreCheck = () =>
    vi.spyOn(t.app.get(DocumentFilesService), 'checkVersionable').mockResolvedValue(undefined);

  describe('#1 a failed upload never takes the bytes of another', () => {
    it('keeps the bytes of a create still in flight when a version upload of the same bytes fails', async () => {
      const target = await create(randomBytes(16));
      expect(target.status).toBe(201);
      skipVersionPreCheck();
      const bytes = randomBytes(64);
      // Hold the create right after its file is placed (reserved, not yet committed).
      const place = store().place.bind(store());
      const createPlaced = signal();
      const releaseCreate = signal();
      let calls = 0;
      vi.spyOn(store(), 'place').mockImplementation(async (tempPath, sha) => {
        const first = calls++ === 0;
        await place(tempPath, sha);
        if (first) {
          createPlaced.fire();
          await releaseCreate.promise;
        }
      });

      const created = create(bytes);
      await createPlaced.promise;
      const failed = await failingVersion(target.body.document.id, bytes);
      expect(failed.status).toBe(412);
      expect(await stored(sha256(bytes))).toBe(true);
      releaseCreate.fire();

      const document = (await created).body.document;
      expect(await download(document.id)).toEqual({ status: 200, bytes });
    });

    it('keeps the bytes of a committed create when a version upload of the same bytes fails after it', async () => {
      const target = await create(randomBytes(16));
      skipVersionPreCheck();
      const bytes = randomBytes(64);
      // The version upload places its file first and is held; the create then commits; then it fails.
      const place = store().place.bind(store());
      const versionPlaced = signal();
      const releaseVersion = signal();
      let calls = 0;
      vi.spyOn(store(), 'place').mockImplementation(async (tempPath, sha) => {
        const first = calls++ === 0;
        await place(tempPath, sha);
        if (first) {
          versionPlaced.fire();
          await releaseVersion.promise;
        }
      });

      const failing = failingVersion(target.body.document.id, bytes);
      await versionPlaced.promise;
      const created = await create(bytes);
      expect(created.status).toBe(201);
      releaseVersion.fire();
      expect((await failing).status).toBe(412);

      expect(await download(created.body.document.id)).toEqual({ status: 200, bytes });
    });

    it('answers every 201 of many concurrent pairs (a create and a failing version upload of the same bytes) with its bytes', async () => {
      const targets = await Promise.all(Array.from({ length: 8 }, () => create(randomBytes(16))));
      skipVersionPreCheck();
      const pairs = targets.map((target) => ({ id: target.body.document.id as string, bytes: randomBytes(4096) }));
      // Both uploads of a pair find no file and both rename (the interleaving that lost bytes): the
      // first existence check of a pair's sha256 waits for the second.
      const racing = new Set(pairs.map(({ bytes }) => sha256(bytes)));
      const first = new Map<string, ReturnType<typeof signal>>();
      const size = store().size.bind(store());
      vi.spyOn(store(), 'size').mockImplementation(async (sha) => {
        if (racing.has(sha)) {
          const waiting = first.get(sha);
          if (waiting) {
            racing.delete(sha);
            waiting.fire();
          } else {
            const arrived = signal();
            first.set(sha, arrived);
            await arrived.promise;
          }
        }
        return size(sha);
      });

      const outcomes = await Promise.all(
        pairs.map(async ({ id, bytes }) => {
          const [created, failed] = await Promise.all([create(bytes), failingVersion(id, bytes)]);
          return { created, failed, bytes };
        }),
      );

      expect(racing.size).toBe(0); // every pair met at the check
      for (const { created, failed, bytes } of outcomes) {
        expect(created.status).toBe(201);
        expect(failed.status).toBe(412);
        expect(await download(created.body.document.id)).toEqual({ status: 200, bytes });
      }
      expect(await pendingCount()).toBe(0);
    });

    it('removes the file of a failed upload at once when nothing else names it', async () => {
      const target = await create(randomBytes(16));
      skipVersionPreCheck();
      const bytes = randomBytes(64);

      expect((await failingVersion(target.body.document.id, bytes)).status).toBe(412);

      expect(await stored(sha256(bytes))).toBe(false);
      expect(await pendingCount()).toBe(0);
    });
  });

  describe('#6 unreferenced files are collected from the database', () => {
    it('DELETE ?permanent=true removes the bytes before it answers, unless another document shares them', async () => {
      const only = randomBytes(64);
      const shared = randomBytes(64);
      const a = (await create(only)).body.document.id as string;
      const b = (await create(shared)).body.document.id as string;
      const c = (await create(shared)).body.document.id as string;
      const purge = (id: string) =>
        fetch(`${t.url}/api/documents/${id}?permanent=true`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
        });

      expect((await purge(a)).status).toBe(204);
      expect(await stored(sha256(only))).toBe(false);

      expect((await purge(b)).status).toBe(204);
      expect(await stored(sha256(shared))).toBe(true);
      expect(await download(c)).toEqual({ status: 200, bytes: shared });
      expect((await purge(c)).status).toBe(204);
      expect(await stored(sha256(shared))).toBe(false);
    });

    it('the sweep removes an orphan file and a stale reservation, and keeps a pending one and a referenced one', async () => {
      const lost = await orphan();
      const inFlight = await orphan();
      await pendingRow(inFlight);
      const died = await orphan();
      await pendingRow(died, new Date(Date.now() - 7 * 86_400_000));
      const bytes = randomBytes(64);
      const kept = (await create(bytes)).body.document.id as string;

      const removed = await t.app.get(StoredFiles).sweep();

      expect(removed).toBeGreaterThanOrEqual(2);
      expect(await stored(lost)).toBe(false);
      expect(await stored(died)).toBe(false);
      expect(await stored(inFlight)).toBe(true);
      expect(await download(kept)).toEqual({ status: 200, bytes });
      expect((await download(t.seed.documents[0].id)).status).toBe(200); // the seed's files are named
    });

    it('refuses to commit an upload whose reservation a sweep found stale (503), and keeps no row', async () => {
      const bytes = randomBytes(64);
      const place = store().place.bind(store());
      vi.spyOn(store(), 'place').mockImplementation(async (tempPath, sha) => {
        // As if the upload had outlived its deadline and a sweep had dropped its reservation.
        await t.dataSource.getRepository(PendingFile).delete({ sha256: sha });
        await place(tempPath, sha);
      });

      const response = await create(bytes);

      expect(response.status).toBe(503);
      expect(await stored(sha256(bytes))).toBe(false);
    });
  });
});
