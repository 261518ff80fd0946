import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Project } from '../../src/projects/entities/project.entity.js';
import { PrivateMariaDb, privateMariaDbAvailable } from '../support/private-mariadb.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const enabled = privateMariaDbAvailable();
if (!enabled && process.env.CI === 'true') {
  throw new Error('CI=true but mariadb-install-db/mariadbd are missing: the database fault suite must not be skipped.');
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
      { DB_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' },
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

  it('answers 503 quickly while the server is down, stays up, and recovers by itself', async () => {
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
      const started = Date.now();
      const response = await call();
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: 'service_unavailable', details: expect.any(String) });
      expect(response.headers['retry-after']).toBe('5');
      expect(response.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|SELECT/);
      expect(Date.now() - started).toBeLessThan(3000);
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

  it('answers 503 within the request timeout when the server hangs, then recovers', async () => {
    server.freeze();
    try {
      const started = Date.now();
      const response = await list();
      expect(response.status).toBe(503);
      expect(response.body.error).toBe('service_unavailable');
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      server.thaw();
    }
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
