import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { aliceFileDocument, createShare, errorOf, openShare } from '../support/shares.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** A password-protected link: 401 missing or wrong, the file when right, 429 past the attempts per address. */
describe.each(databasesUnderTest())('share link passwords on %s', (kind) => {
  let t: TestApp;
  let alice: string;
  let documentId: string;

  const guarded = async () => {
    const response = await createShare(t, alice, documentId, {
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      password: 'amber-Lantern-44',
    });
    expect(response.status).toBe(201);
    return response.body as { id: string; token: string };
  };
  const withPassword = (password: string) => ({ 'x-share-password': password });

  beforeAll(async () => {
    t = await createTestApp(kind, {
      LOGIN_RATE_LIMIT_PER_USERNAME: '3',
      LOGIN_RATE_WINDOW_PER_USERNAME_SECONDS: '600',
    });
    alice = await t.login('alice');
    documentId = await aliceFileDocument(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('asks for the password (401) when it is missing or wrong, and serves with it', async () => {
    const { token } = await guarded();
    expectError(errorOf(await openShare(t, token)), 401, 'share_password_required');
    expectError(errorOf(await openShare(t, token, withPassword('wrong-password'))), 401, 'share_password_required');
    const served = await openShare(t, token, withPassword('amber-Lantern-44'));
    expect(served.status).toBe(200);
    expect(served.headers['x-robots-tag']).toBe('noindex, nofollow');
  });

  it('throttles attempts per link and address like logins; other links keep their own count', async () => {
    const { id, token } = await guarded();
    const other = await guarded();
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await openShare(t, token, withPassword(`wrong-${attempt}`))).status).toBe(401);
    }
    const blocked = await openShare(t, token, withPassword('amber-Lantern-44'));
    expectError(errorOf(blocked), 429, 'too_many_requests');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await openShare(t, other.token, withPassword('amber-Lantern-44'))).status).toBe(200);
    const refusals = await t.dataSource.query<{ n: number | string }[]>(
      "SELECT COUNT(*) AS n FROM audit_events WHERE targetId = ? AND action = 'share.refused'",
      [id],
    );
    expect(Number(refusals[0].n)).toBe(3);
  });

  it('lists the link as password-protected, never its hash', async () => {
    const { id } = await guarded();
    const response = await (
      await import('supertest')
    )
      .default(t.url)
      .get(`/api/documents/${documentId}/shares`)
      .set('authorization', `Bearer ${alice}`);
    const listed = (response.body.shares as { id: string; hasPassword: boolean }[]).find((link) => link.id === id);
    expect(listed?.hasPassword).toBe(true);
    expect(JSON.stringify(response.body)).not.toMatch(/argon2/);
  });
});
