import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShareDownloads } from '../../src/shares/share-downloads.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { uploadDocument } from '../support/content.js';
import { waitFor } from '../support/inbox.js';
import { aliceFileDocument, createShare, errorOf, openShare } from '../support/shares.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';
import { sendMultipart } from '../support/uploads.js';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const GONE = { error: 'share_not_found', details: 'This link does not exist or is no longer available.' };

/** Share links: one document's file for anyone with the link, while it is valid; every refusal alike. */
describe.each(databasesUnderTest())('share links on %s', (kind) => {
  let t: TestApp;
  const clock = new TestClock(new Date('2026-11-27T10:00:00.000Z'));
  const tokens = {} as Record<'alice' | 'bob' | 'admin', string>;
  let documentId: string;
  let fileBytes: Buffer;
  let fileEtag: string;

  const share = async (body: object = {}) => {
    const response = await createShare(t, tokens.alice, documentId, {
      expiresAt: new Date(clock.now().getTime() + 7 * DAY).toISOString(),
      ...body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; url: string; token: string };
  };
  const refusedAlike = async (shareToken: string) => {
    const response = await openShare(t, shareToken);
    expect(errorOf(response)).toEqual({ status: 404, body: GONE });
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { SHARE_BASE_URL: 'https://dms.example.com' }, undefined, { clock });
    for (const name of ['alice', 'bob', 'admin'] as const) tokens[name] = await t.login(name);
    documentId = await aliceFileDocument(t);
    const content = await request(t.url)
      .get(`/api/documents/${documentId}/content`)
      .set('authorization', `Bearer ${tokens.alice}`)
      .buffer(true)
      .parse((response, callback) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => callback(null, Buffer.concat(chunks)));
      });
    fileBytes = content.body as Buffer;
    fileEtag = content.headers.etag;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers the token once and stores only its SHA-256', async () => {
    const created = await share();
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(`https://dms.example.com/s/${created.token}`);
    const [row] = await t.dataSource.query<{ tokenHash: string }[]>('SELECT tokenHash FROM share_links WHERE id = ?', [
      created.id,
    ]);
    expect(row.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    const listed = await request(t.url)
      .get(`/api/documents/${documentId}/shares`)
      .set('authorization', `Bearer ${tokens.bob}`);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(created.token);
    expect(listed.body.shares).toContainEqual(
      expect.objectContaining({ id: created.id, hasPassword: false, downloads: 0, maxDownloads: null }),
    );
  });

  it('serves the file like the authenticated download, kept out of search engines', async () => {
    const { token } = await share();
    const whole = await openShare(t, token);
    expect(whole.status).toBe(200);
    expect(Buffer.compare(whole.body as Buffer, fileBytes)).toBe(0);
    expect(whole.headers).toMatchObject({
      etag: fileEtag,
      'x-robots-tag': 'noindex, nofollow',
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
    });
    expect(whole.headers['content-disposition']).toMatch(/^attachment; /);
    const part = await openShare(t, token, { range: 'bytes=0-3' });
    expect(part.status).toBe(206);
    expect(Buffer.compare(part.body as Buffer, fileBytes.subarray(0, 4))).toBe(0);
    expect((await openShare(t, token, { 'if-none-match': fileEtag })).status).toBe(304);
  });

  it('shows a small HTML page only to a client asking for text/html', async () => {
    const { token } = await share();
    const page = await openShare(t, token, { accept: 'text/html,application/xhtml+xml' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect((page.body as Buffer).toString('utf8')).toContain('href="?download=true"');
    const file = await openShare(t, token, { accept: 'text/html' }, '?download=true');
    expect(Buffer.compare(file.body as Buffer, fileBytes)).toBe(0);
  });

  it('refuses an unknown token exactly as an expired, revoked, used up or trashed link', async () => {
    await refusedAlike('A'.repeat(43));
    await refusedAlike('not-a-token');

    const expiring = await share({ expiresAt: new Date(clock.now().getTime() + HOUR).toISOString() });
    expect((await openShare(t, expiring.token)).status).toBe(200);
    clock.advance(HOUR);
    await refusedAlike(expiring.token);

    const counted = await share({ maxDownloads: 2 });
    expect((await openShare(t, counted.token)).status).toBe(200);
    expect((await openShare(t, counted.token)).status).toBe(200);
    await refusedAlike(counted.token);

    // Concurrent downloads of a limited link share a group commit, each counted against the limit.
    const raced = await share({ maxDownloads: 3 });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => openShare(t, raced.token)));
    expect(answers.map((answer) => answer.status).sort((a, b) => a - b)).toEqual([200, 200, 200, 404, 404]);

    const revoked = await share();
    expectError(
      await request(t.url).delete(`/api/shares/${revoked.id}`).set('authorization', `Bearer ${tokens.bob}`),
      403,
      'forbidden',
    );
    expect(
      (await request(t.url).delete(`/api/shares/${revoked.id}`).set('authorization', `Bearer ${tokens.alice}`)).status,
    ).toBe(204);
    await refusedAlike(revoked.token);

    const trashed = await share();
    const trash = await request(t.url)
      .delete(`/api/documents/${documentId}`)
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(trash.status).toBe(204);
    await refusedAlike(trashed.token);
    const restore = await request(t.url)
      .post(`/api/documents/${documentId}/restore`)
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(restore.status).toBe(200);
    expect((await openShare(t, trashed.token)).status).toBe(200);
  });

  it('audits every use and tells the sharer only through an event they may turn on', async () => {
    const { id, token } = await share();
    const served = await Promise.all([1, 2, 3].map(() => openShare(t, token)));
    expect(served.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // A link without a limit is served first; its downloads are recorded in the next group commit.
    await t.app.get(ShareDownloads).settled();
    const audited = await t.dataSource.query<{ action: string; actorId: string | null; changes: unknown }[]>(
      'SELECT action, actorId, changes FROM audit_events WHERE targetId = ? ORDER BY sequence',
      [id],
    );
    expect(audited.map(({ action, actorId }) => ({ action, actorId }))).toEqual([
      { action: 'share.created', actorId: t.user('alice').id },
      { action: 'share.accessed', actorId: null },
      { action: 'share.accessed', actorId: null },
      { action: 'share.accessed', actorId: null },
    ]);
    // Each download is audited with the count it made, also within one commit.
    const counts = audited
      .slice(1)
      .map(({ changes }) => (typeof changes === 'string' ? JSON.parse(changes) : changes).downloads);
    expect(counts).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
    const listed = await request(t.url)
      .get(`/api/documents/${documentId}/shares`)
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(listed.body.shares.find((link: { id: string }) => link.id === id)).toMatchObject({ downloads: 3 });
    // The sharer is told once per link and commit: the events stand for the 3 downloads together.
    const events = await t.dataSource.query<{ subjectUserId: string; payload: string | object }[]>(
      "SELECT subjectUserId, payload FROM outbox_events WHERE type = 'share.accessed' AND payload LIKE ?",
      [`%${id}%`],
    );
    expect(events.length).toBeGreaterThanOrEqual(1);
    for (const event of events) expect(event.subjectUserId).toBe(t.user('alice').id);
    const payloads = events.map(
      ({ payload }) => (typeof payload === 'string' ? JSON.parse(payload) : payload) as { downloads: number },
    );
    expect(payloads.reduce((sum, payload) => sum + payload.downloads, 0)).toBe(3);
    const preferences = await request(t.url)
      .get('/api/notifications/preferences')
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(preferences.body.preferences['share.accessed']).toEqual({
      in_app: false,
      email: { mode: 'off', delayMinutes: 15 },
    });

    const turnedOn = await request(t.url)
      .put('/api/notifications/preferences')
      .set('authorization', `Bearer ${tokens.alice}`)
      .send({ preferences: { 'share.accessed': { in_app: true, email: false } } });
    expect(turnedOn.status).toBe(200);
    expect((await openShare(t, token)).status).toBe(200);
    // Read from the table: the service's clock is fixed in the past, so the seeded inbox lists newer ones first.
    const told = await waitFor(async () => {
      const found = await t.dataSource.query<{ id: string }[]>(
        "SELECT id FROM notifications WHERE userId = ? AND event = 'share.accessed' AND notificationType = 'in_app'",
        [t.user('alice').id],
      );
      return found.length > 0 && found;
    }, 'the share.accessed notification');
    expect(told.length).toBeGreaterThanOrEqual(1);
  });

  it('serves the version a link names, or the current one as versions are added', async () => {
    const document = await uploadDocument(t, tokens.alice, t.seed.projects[0].id, 'v.txt', 'first version\n');
    const expiresAt = new Date(clock.now().getTime() + DAY).toISOString();
    const links = await Promise.all(
      [{}, { version: 1 }].map(async (body) => {
        const created = await createShare(t, tokens.alice, document.id, { expiresAt, ...body });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return (created.body as { token: string }).token;
      }),
    );
    const added = await sendMultipart(`${t.url}/api/documents/${document.id}/versions`, tokens.alice, [
      { name: 'file', fileName: 'v.txt', bytes: 'second version\n' },
    ]);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const [current, pinned] = await Promise.all(links.map((token) => openShare(t, token)));
    expect([current.status, pinned.status]).toEqual([200, 200]);
    expect((current.body as Buffer).toString('utf8')).toBe('second version\n');
    expect((pinned.body as Buffer).toString('utf8')).toBe('first version\n');
  });

  it('refuses expiries past SHARE_MAX_DAYS, in the past, unknown versions, and non-contributors', async () => {
    const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
    expectError(await createShare(t, tokens.alice, documentId, { expiresAt: at(31 * DAY) }), 400, 'validation_failed');
    expectError(await createShare(t, tokens.alice, documentId, { expiresAt: at(-1) }), 400, 'validation_failed');
    expectError(await createShare(t, tokens.alice, documentId, {}), 400, 'validation_failed');
    expectError(
      await createShare(t, tokens.alice, documentId, { expiresAt: at(DAY), version: 999 }),
      404,
      'version_not_found',
    );
    expectError(
      await createShare(t, tokens.alice, '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f', { expiresAt: at(DAY) }),
      404,
      'document_not_found',
    );
  });
});
