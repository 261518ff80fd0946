import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';
import { sendMultipart } from '../support/uploads.js';

const MINUTE = 60_000;

/** Check-out locks: while alice holds one, every write path refuses others (423) until it ends. */
describe.each(databasesUnderTest())('document check-out locks on %s', (kind) => {
  let t: TestApp;
  const clock = new TestClock(new Date('2026-11-27T10:00:00.000Z'));
  const tokens: Record<'alice' | 'bob' | 'admin', string> = { alice: '', bob: '', admin: '' };
  let documentId: string;

  const as = (who: keyof typeof tokens) => `Bearer ${tokens[who]}`;
  const lock = (who: keyof typeof tokens, body: object = {}) =>
    request(t.url).post(`/api/documents/${documentId}/lock`).set('authorization', as(who)).send(body);
  const currentLock = async () =>
    (await request(t.url).get(`/api/documents/${documentId}/lock`).set('authorization', as('bob'))).body.lock;
  const newVersion = (who: keyof typeof tokens, query = '') =>
    sendMultipart(`${t.url}/api/documents/${documentId}/versions${query}`, tokens[who], [
      {
        name: 'file',
        fileName: 'v.txt',
        bytes: `version by ${who} at ${clock.now().toISOString()}`,
        type: 'text/plain',
      },
    ]);

  /** Every write path, as `who`: the statuses they answer. */
  const writes = async (who: keyof typeof tokens) => {
    const put = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', as(who))
      .send({ description: `edited by ${who} ${clock.now().getTime()}` });
    const version = await newVersion(who);
    const status = await request(t.url)
      .post(`/api/documents/${documentId}/status`)
      .set('authorization', as(who))
      .send({ status: 'in_review' });
    const trash = await request(t.url).delete(`/api/documents/${documentId}`).set('authorization', as(who));
    return { put, version, status, trash };
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { LOCK_MAX_MINUTES: '120' }, undefined, { clock });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[name] = await t.login(name);
    const [own] = await t.dataSource.query<{ id: string }[]>(
      "SELECT id FROM documents WHERE uploadedBy = ? AND status = 'draft' AND deletedAt IS NULL ORDER BY id LIMIT 1",
      [t.user('alice').id],
    );
    documentId = own.id;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('takes a lock of 60 minutes by default, shown to readers', async () => {
    const response = await lock('alice');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({
      documentId,
      holder: { id: t.user('alice').id, username: 'alice' },
      acquiredAt: clock.now().toISOString(),
      expiresAt: new Date(clock.now().getTime() + 60 * MINUTE).toISOString(),
    });
    expect(await currentLock()).toEqual(response.body);
  });

  it('refuses every write by someone else with 423 naming the holder and the expiry', async () => {
    const { put, version, status, trash } = await writes('admin');
    for (const response of [put, version, status, trash]) {
      expectError({ status: response.status, body: response.body }, 423, 'document_locked');
      expect(response.body.details).toContain('alice');
      expect(response.body.details).toContain('2026-11-27T11:00:00.000Z');
    }
    expectError(await lock('admin'), 423, 'document_locked');
    // bob may not change alice's document at all: 403 before the lock matters.
    expectError(await lock('bob'), 403, 'forbidden');
  });

  it('lets the holder write, and refuses a lock longer than LOCK_MAX_MINUTES', async () => {
    const put = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', as('alice'))
      .send({ description: 'edited by the holder' });
    expect(put.status).toBe(200);
    expectError(await lock('alice', { minutes: 121 }), 400, 'validation_failed');
    expectError(await lock('alice', { minutes: 0 }), 400, 'validation_failed');
  });

  it('ends by itself when its time is up', async () => {
    clock.advance(60 * MINUTE - 1);
    expectError(
      await request(t.url)
        .put(`/api/documents/${documentId}`)
        .set('authorization', as('admin'))
        .send({ description: 'x' }),
      423,
      'document_locked',
    );
    clock.advance(1);
    expect(await currentLock()).toBeUndefined();
    const put = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', as('admin'))
      .send({ description: 'after the lock' });
    expect(put.status).toBe(200);
  });

  it("is released by the holder's new version with ?unlock=true, and kept without it", async () => {
    expect((await lock('alice', { minutes: 30 })).status).toBe(200);
    expect((await newVersion('alice')).status).toBe(201);
    expect(await currentLock()).toBeDefined();
    expect((await newVersion('alice', '?unlock=true')).status).toBe(201);
    expect(await currentLock()).toBeUndefined();
    expect((await newVersion('admin')).status).toBe(201);
  });

  it('is released by its holder, a project manager or documents:update; by nobody else', async () => {
    expect((await lock('alice')).status).toBe(200);
    const unlock = (who: keyof typeof tokens) =>
      request(t.url).delete(`/api/documents/${documentId}/lock`).set('authorization', as(who));
    expectError(await unlock('bob'), 403, 'forbidden');
    expect((await unlock('admin')).status).toBe(204);
    expectError(await unlock('alice'), 404, 'lock_not_found');
    expect((await lock('alice')).status).toBe(200);
    expect((await unlock('alice')).status).toBe(204);
    const audited = await t.dataSource.query<{ action: string }[]>(
      "SELECT action FROM audit_events WHERE targetId = ? AND action LIKE 'document.%lock%' ORDER BY at",
      [documentId],
    );
    expect(audited.map((row) => row.action)).toContain('document.unlocked');
    expect(audited.map((row) => row.action)).toContain('document.locked');
  });

  it('answers 404 to those who cannot read the document', async () => {
    const nora = await request(t.url)
      .get('/api/documents/9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f/lock')
      .set('authorization', as('bob'));
    expectError(nora, 404, 'document_not_found');
  });
});
