import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Project } from '../../src/projects/entities/project.entity.js';
import { PrivateMariaDb, privateMariaDbAvailable } from '../support/private-mariadb.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const enabled = privateMariaDbAvailable();
// The two 503 answers, told apart by their details: a database failure the app recognised, and a
// request the request deadline (REQUEST_TIMEOUT_MS) had to give up on.
const DATABASE_UNAVAILABLE = 'The database is temporarily unavailable; retry shortly.';
const NOT_IN_TIME = 'The service could not answer in time; retry shortly.';
if (!enabled && process.env.CI === 'true') {
  throw new Error(
    'CI=true but mariadb-install-db, mariadbd or /proc is missing: the database fault suite must not be skipped.',
  );
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await check().catch(() => false)) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

describe.runIf(enabled)('when MariaDB goes away', () => {
  const server = new PrivateMariaDb();
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    await server.install();
    t = await createTestApp(
      'mysql',
      // The request deadline comes first: a connection opened to the hung server (connectTimeout =
      // DB_TIMEOUT_MS) must not give up before it, or that 503 would race the deadline's.
      { DB_TIMEOUT_MS: '3000', REQUEST_TIMEOUT_MS: '2000' },
      { kind: 'mysql', url: server.url, drop: async () => undefined },
    );
    token = await t.login('alice');
  }, 90_000);

  afterAll(async () => {
    server.thaw();
    await t?.close().catch(() => undefined);
    await server.destroy();
  });

  const list = () => request(t.url).get('/api/notifications').set('authorization', `Bearer ${token}`);

  it('answers 503 at once while the server is down (no wait for the timeout), stays up, and recovers', async () => {
    // Also when the test fails, so the next test finds a running server.
    onTestFinished(async () => {
      if (!server.running) await server.start();
    });
    expect((await list()).status).toBe(200);
    await server.kill();

    for (const call of [
      list,
      () => request(t.url).post('/api/auth/login').send({ username: 'alice', password: TEST_PASSWORD }),
      () =>
        request(t.url)
          .put(`/api/documents/${t.seed.documents[0].id}`)
          .set('authorization', `Bearer ${token}`)
          .send({ title: 'while down' }),
    ]) {
      const response = await call();
      expect(response.status).toBe(503);
      // The refused connection itself is the answer: had the app waited for the request timeout
      // instead, the details would be NOT_IN_TIME.
      expect(response.body).toEqual({ error: 'service_unavailable', details: DATABASE_UNAVAILABLE });
      expect(response.headers['retry-after']).toBe('5');
      expect(response.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|SELECT/);
    }
    expect((await request(t.url).get('/health/live')).status).toBe(200);
    const ready = await request(t.url).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toBe('service_unavailable');

    await server.start();
    await eventually(async () => (await list()).status === 200, 20_000);
    expect((await request(t.url).get('/health/ready')).status).toBe(200);
    expect((await list()).body.pagination.total).toBe(t.seed.notifications[t.user('alice').id]);
  });

  it('answers 503 when the request timeout runs out while the server hangs, then recovers', async () => {
    const timeoutMs = t.config.http.requestTimeoutMs;
    const admin = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    // Also when the test fails or times out, so the next test finds a running server.
    onTestFinished(() => {
      server.thaw();
      admin.destroy();
    });
    expect((await list()).status).toBe(200);
    // Resolves once every server thread is stopped: from then on nothing the app sends is answered.
    await server.freeze();
    let pingAnswered = false;
    const ping = admin.ping().then(() => {
      pingAnswered = true;
    });
    const started = performance.now();
    const response = await list();
    const elapsed = performance.now() - started;
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'service_unavailable', details: NOT_IN_TIME });
    expect(response.headers['retry-after']).toBe('5');
    // Not before the timeout (less libuv's millisecond clock rounding). Without the handler
    // timeout nothing would answer at all, and the test would run into its own timeout.
    expect(elapsed).toBeGreaterThan(timeoutMs - 1);
    // The server answered nothing, not even a ping sent before the request, while the app waited.
    expect(pingAnswered).toBe(false);

    server.thaw();
    await ping;
    await eventually(async () => (await list()).status === 200, 20_000);
  });

  it('rolls back a transaction whose connection is killed, and the next request succeeds', async () => {
    const admin = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    try {
      const projectId = '00000000-0000-4000-8000-00000000aaaa';
      await expect(
        t.dataSource.transaction(async (manager) => {
          await manager.insert(Project, { id: projectId, name: 'half-written', createdAt: new Date() });
          const [{ id }] = await manager.query<{ id: number }[]>('SELECT CONNECTION_ID() AS id');
          await admin.query('KILL ?', [id]);
          await manager.query('SELECT 1');
        }),
      ).rejects.toThrow(/./);
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM dms_fault_test.projects WHERE id = ?', [projectId]);
      expect((rows as { n: number }[])[0].n).toBe(0);
    } finally {
      await admin.end();
    }
    await eventually(async () => (await list()).status === 200, 10_000);
    const update = await request(t.url)
      .put(`/api/documents/${t.seed.documents[0].id}`)
      .set('authorization', `Bearer ${await t.login('alice')}`)
      .send({ title: 'after the kill' });
    expect(update.status).toBe(200);
  });
});
