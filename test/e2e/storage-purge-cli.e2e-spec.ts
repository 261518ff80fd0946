// npm run trash:purge with TRASH_RETENTION_DAYS=0, as a real process on dist/ (built by the e2e
// global setup): when it exits, the bytes of what it purged and of orphan files are gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrashPurgeScheduler } from '../../src/documents/trash-purge.scheduler.js';
import { storageEnvOf, storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const PURGE = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/src/cli/trash-purge.cli.js');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(storageSetupsUnderTest())(
  'trash:purge collects stored files on $kind, $driver driver',
  ({ kind, driver }) => {
    let t: TestApp;
    let scratch: string;
    let child: ChildProcess | undefined;

    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'dms-storage-purge-'));
      t = await createTestApp(kind, { STORAGE_DRIVER: driver });
      t.app.get(TrashPurgeScheduler).onApplicationShutdown();
    });

    afterAll(async () => {
      child?.kill('SIGKILL');
      await t?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    function purge(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
      return new Promise((resolve, reject) => {
        child = spawn(process.execPath, [PURGE], { cwd: scratch, env: { PATH: process.env.PATH ?? '', ...env } });
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, output }));
      });
    }

    it('removes the bytes of the purged document and of an orphan file, and keeps the rest', async () => {
      const token = await t.login('admin');
      const trashedBytes = randomBytes(64);
      const created = await sendMultipart(`${t.url}/api/documents`, token, [
        { name: 'projectId', value: t.seed.projects[0].id },
        { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
        { name: 'file', fileName: 'gone.bin', bytes: trashedBytes },
      ]);
      expect(created.status).toBe(201);
      const trashed = await fetch(`${t.url}/api/documents/${created.body.document.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(trashed.status).toBe(204);
      const orphanBytes = randomBytes(64);
      await t.stored.write(sha256(orphanBytes), orphanBytes);

      const result = await purge({
        DATABASE_URL: t.database.url,
        ...storageEnvOf(t.env),
        TRASH_RETENTION_DAYS: '0',
      });

      expect(result.output).not.toMatch(/already registered/);
      expect(result).toMatchObject({ code: 0 });
      expect(result.output).toMatch(/Purged 1 document\(s\) from the trash and removed 2 stored file\(s\)\./);
      expect(await t.stored.has(sha256(trashedBytes))).toBe(false);
      expect(await t.stored.has(sha256(orphanBytes))).toBe(false);
      const seeded = await fetch(`${t.url}/api/documents/${t.seed.documents[0].id}/content`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(seeded.status).toBe(200);
    });
  },
);
