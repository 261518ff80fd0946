// npm run trash:purge, run as a real process on the built output (dist/, built by the e2e global setup).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrashPurgeScheduler } from '../../src/documents/trash-purge.scheduler.js';
import { FileStore } from '../../src/storage/file-store.js';
import type { LocalFileStore } from '../../src/storage/local-file-store.js';
import { addDocument } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PURGE = join(ROOT, 'dist/src/cli/trash-purge.cli.js');

function run(
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PURGE], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.each(databasesUnderTest())('npm run trash:purge on %s', (kind) => {
  let t: TestApp;
  let storageDir: string;
  let scratch: string;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'dms-purge-files-'));
    scratch = mkdtempSync(join(tmpdir(), 'dms-purge-cwd-'));
    t = await createTestApp(kind, { STORAGE_DIR: storageDir });
    // The suite runs the purge itself: stop the service's hourly one so it cannot get there first.
    t.app.get(TrashPurgeScheduler).onApplicationShutdown();
  });

  afterAll(async () => {
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('removes the documents past TRASH_RETENTION_DAYS and their unreferenced files, and keeps the rest', async () => {
    const alice = t.user('alice').id;
    const projectId = t.seed.projects[0].id;
    const bytes = randomBytes(32);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const path = t.app.get<FileStore, LocalFileStore>(FileStore).pathOf(sha);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    const old = new Date(Date.now() - 86_400_000);
    utimesSync(path, old, old);
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    const expired = await addDocument(t, { projectId, uploadedBy: alice, deletedAt: days(8), deletedBy: alice });
    const kept = await addDocument(t, { projectId, uploadedBy: alice, deletedAt: days(6), deletedBy: alice });
    await t.dataSource.query(
      `INSERT INTO document_versions (documentId, version, fileName, fileSize, mimeType, sha256, comment, uploadedBy, createdAt)
       VALUES (?, 1, 'f.bin', 32, 'application/octet-stream', ?, '', ?, '2026-01-01 00:00:00.000')`,
      [expired, sha, alice],
    );

    const result = await run(
      { DATABASE_URL: t.database.url, STORAGE_DIR: storageDir, TRASH_RETENTION_DAYS: '7' },
      scratch,
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/Purged 1 document\(s\) from the trash and removed 1 stored file\(s\)\./);
    const remaining = await t.dataSource.query<{ id: string }[]>('SELECT id FROM documents WHERE id IN (?, ?)', [
      expired,
      kept,
    ]);
    expect(remaining.map((row) => row.id)).toEqual([kept]);
    expect(existsSync(path)).toBe(false);
    // The operator's purge is audited, with no actor.
    const audits = await t.dataSource.query<{ targetId: string; actorId: string | null }[]>(
      "SELECT targetId, actorId FROM audit_events WHERE action = 'document.purged'",
    );
    expect(audits).toEqual([{ targetId: expired, actorId: null }]);
  });
});
