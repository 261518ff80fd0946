// The audit hash chain: concurrent audited writes from two instances on one database, the head,
// the NDJSON export checked by an implementation written here (not the service's), and
// `npm run audit:verify` (a real process on dist/) finding a row changed behind the service's back.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const VERIFY = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/src/cli/audit-verify.cli.js');
const WRITES = 1_000;
const IN_FLIGHT = 16;

/** RFC 8785 for strings, integers, booleans, null, arrays and objects: an auditor's own implementation. */
function jcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${jcs((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Checks NDJSON lines as an auditor would: each line's hash, and each link to the line before (the
 * first line's previousHash is the genesis when it is event 1). Answers what does not hold.
 */
function auditorVerifies(ndjson: string): { lines: number; lastHash: string; problems: string[] } {
  const lines = ndjson.split('\n').filter((line) => line.length > 0);
  const problems: string[] = [];
  let previous: { sequence: number; hash: string } | null = null;
  for (const line of lines) {
    const { previousHash, hash, ...event } = JSON.parse(line) as Record<string, unknown> & {
      previousHash: string;
      hash: string;
      sequence: number;
    };
    const computed = createHash('sha256')
      .update(`${previousHash}${jcs(event)}`, 'utf8')
      .digest('hex');
    if (computed !== hash) problems.push(`event ${event.sequence}: hash`);
    const expectedPrevious = previous ? previous.hash : event.sequence === 1 ? '0'.repeat(64) : previousHash;
    if (previousHash !== expectedPrevious) problems.push(`event ${event.sequence}: previousHash`);
    if (previous && event.sequence !== previous.sequence + 1) problems.push(`event ${event.sequence}: sequence`);
    previous = { sequence: event.sequence, hash };
  }
  return { lines: lines.length, lastHash: previous?.hash ?? '0'.repeat(64), problems };
}

describe.each(databasesUnderTest())('the audit hash chain on %s', (kind) => {
  let t: TestApp;
  let second: ServiceProcess;
  let token: string;
  let documentId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    // A second instance on the same database (migrations already ran; no seed).
    second = await startServiceProcess({ ...t.env, DB_MIGRATIONS_RUN: 'false' });
    token = await t.login('admin');
    const upload = await sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'title', value: 'Chained' },
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'c.txt', bytes: 'chain', type: 'text/plain' },
    ]);
    if (upload.status !== 201) throw new Error(`upload answered ${upload.status}`);
    documentId = upload.body.document.id;
  });

  afterAll(async () => {
    await stopServiceProcesses();
    await t?.close();
  });

  const get = (path: string) => fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  function verifyCli(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [VERIFY], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.database.url, STORAGE_DIR: t.config.storage.dir },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it(`stays one unbroken chain after ${WRITES} concurrent audited writes from two instances`, async () => {
    const before = (await (await get('/api/audit-events/head')).json()) as { count: number };
    let next = 0;
    const statuses: number[] = [];
    // Each worker posts comments (each one audited) to one of the two instances in turn.
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, worker) => {
        for (let index = next++; index < WRITES; index = next++) {
          const base = worker % 2 === 0 ? t.url : second.url;
          const response = await fetch(`${base}/api/documents/${documentId}/comments`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ body: `remark ${index}` }),
          });
          statuses.push(response.status);
          await response.arrayBuffer();
        }
      }),
    );
    expect(statuses.filter((status) => status !== 201)).toEqual([]);

    const head = await get('/api/audit-events/head');
    expect(head.status).toBe(200);
    const { count, hash } = (await head.json()) as { count: number; hash: string };
    expect(count).toBe(before.count + WRITES);

    const exported = await get('/api/audit-events/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(auditorVerifies(await exported.text())).toEqual({ lines: count, lastHash: hash, problems: [] });

    const cli = await verifyCli();
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`${count} event(s) verified; head ${hash}`);
    expect(cli.stderr).toContain(`${count}/${count} events`);
  }, 600_000);

  it('exports a time range whose lines link to each other', async () => {
    const all = (await (await get('/api/audit-events/export')).text()).split('\n').filter(Boolean);
    const middle = JSON.parse(all[Math.floor(all.length / 2)]) as { at: string };
    const ranged = await (await get(`/api/audit-events/export?from=${encodeURIComponent(middle.at)}`)).text();
    const { lines, problems } = auditorVerifies(ranged);
    expect(problems).toEqual([]);
    expect(lines).toBeGreaterThan(0);
    expect(lines).toBeLessThan(all.length);
    expect((await get('/api/audit-events/export?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')).status).toBe(400);
  });

  it('the database refuses a chained event that does not follow the head', async () => {
    const { count, hash } = (await (await get('/api/audit-events/head')).json()) as { count: number; hash: string };
    const forge = (sequence: number, previousHash: string) =>
      t.dataSource.query(
        `INSERT INTO audit_events (id, at, actorId, action, targetType, targetId, ip, requestId, changes, sequence, previousHash, hash)
         VALUES (?, '2030-01-01 00:00:00.000', NULL, 'forged', 'document', NULL, NULL, NULL, '{}', ?, ?, ?)`,
        [randomUUID(), sequence, previousHash, 'f'.repeat(64)],
      );
    await expect(forge(count + 1, '0'.repeat(64))).rejects.toThrow(/does not follow the chain head/);
    await expect(forge(count, hash)).rejects.toThrow(/does not follow the chain head/);
    expect(await (await get('/api/audit-events/head')).json()).toMatchObject({ count, hash });
  });

  it('audit:verify names the first event changed behind the service, then a removed last event, and exits 1', async () => {
    const rows: { changes: string }[] = await t.dataSource.query('SELECT changes FROM audit_events WHERE sequence = 7');
    const [{ changes }] = rows;
    await t.dataSource.query("UPDATE audit_events SET changes = '{}' WHERE sequence = 7");
    const changed = await verifyCli();
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^Broken link at sequence 7 \(event [0-9a-f-]{36}\): the stored hash/m);
    expect(changed.stderr).toContain('The audit chain is broken after 6 intact event(s).');

    await t.dataSource.query('UPDATE audit_events SET changes = ? WHERE sequence = 7', [changes]);
    const { count } = (await (await get('/api/audit-events/head')).json()) as { count: number };
    await t.dataSource.query('DELETE FROM audit_events WHERE sequence = ?', [count]);
    const truncated = await verifyCli();
    expect(truncated.code).toBe(1);
    expect(truncated.stdout).toContain(`Broken link at sequence ${count}: the chain head names event ${count}`);
  }, 120_000);
});
