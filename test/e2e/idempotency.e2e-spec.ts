import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('Idempotency-Key on creating POSTs on %s', (kind) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  const createProject = (key: string | undefined, body: object) => {
    const call = request(t.url).post('/api/projects').set('authorization', `Bearer ${token}`);
    return (key === undefined ? call : call.set('idempotency-key', key)).send(body);
  };
  const projects = async () =>
    Number((await t.dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM projects'))[0].n);

  it('answers the same request again with the first answer, and creates once', async () => {
    const key = randomUUID();
    const before = await projects();
    const first = await createProject(key, { name: 'Once only', description: 'x' });
    expect(first.status).toBe(201);
    const again = await createProject(key, { description: 'x', name: 'Once only' });
    expect({ status: again.status, body: again.body, location: again.headers.location }).toEqual({
      status: 201,
      body: first.body,
      location: first.headers.location,
    });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await projects()).toBe(before + 1);
    // Without a key, every request creates.
    expect((await createProject(undefined, { name: 'Twice' })).status).toBe(201);
    expect((await createProject(undefined, { name: 'Twice' })).status).toBe(201);
    expect(await projects()).toBe(before + 3);
  });

  it('refuses the same key with another body (422) and while the first is at work (409)', async () => {
    const key = randomUUID();
    expect((await createProject(key, { name: 'First' })).status).toBe(201);
    const before = await projects();
    expectError(await createProject(key, { name: 'Second' }), 422, 'idempotency_key_reused');
    // As while the first request is still at work: its answer not yet recorded.
    await t.dataSource.query('UPDATE idempotency_keys SET status = NULL WHERE idempotencyKey = ?', [key]);
    expectError(await createProject(key, { name: 'First' }), 409, 'idempotency_key_in_flight');
    expect(await projects()).toBe(before);
  });

  it('forgets a key after 24 hours and after a failed request', async () => {
    const key = randomUUID();
    expect((await createProject(key, { name: 'Old' })).status).toBe(201);
    await t.dataSource.query(
      "UPDATE idempotency_keys SET expiresAt = '2020-01-01 00:00:00.000' WHERE idempotencyKey = ?",
      [key],
    );
    const before = await projects();
    expect((await createProject(key, { name: 'Old' })).status).toBe(201);
    expect(await projects()).toBe(before + 1);

    const failing = randomUUID();
    expectError(await createProject(failing, { name: '' }), 400, 'validation_failed');
    expect((await createProject(failing, { name: 'Valid now' })).status).toBe(201);
  });

  it('refuses a key that is not 1 to 255 visible ASCII characters, and creates nothing', async () => {
    const before = await projects();
    for (const key of ['x'.repeat(256), 'with space']) {
      expectError(await createProject(key, { name: 'Refused' }), 400, 'validation_failed');
    }
    expect(await projects()).toBe(before);
  });
});
