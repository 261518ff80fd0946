// npm run storage:verify, run as a real process on dist/ (built by the e2e global setup).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageEnvOf, storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const VERIFY = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/src/cli/storage-verify.cli.js');

describe.each(storageSetupsUnderTest())('npm run storage:verify on $kind, $driver driver', ({ kind, driver }) => {
  let t: TestApp;
  let scratch: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dms-storage-verify-'));
    t = await createTestApp(kind, { STORAGE_DRIVER: driver });
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  function verify(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      child = spawn(process.execPath, [VERIFY], {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.database.url, ...storageEnvOf(t.env) },
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('passes on an intact store, then names a corrupted file and exits non-zero', async () => {
    expect(await verify()).toMatchObject({ code: 0, stderr: '' });

    const token = await t.login('admin');
    const bytes = randomBytes(128);
    const created = await sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'f.bin', bytes },
    ]);
    expect(created.status).toBe(201);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await t.stored.write(sha, randomBytes(128)); // same size, other bytes

    const result = await verify();

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${sha}: content has SHA-256`);
    expect(result.stderr).toMatch(/storage:verify: 1 stored file\(s\) are missing or damaged\./);
  });
});
