// Own account: GET /api/auth/me and POST /api/auth/password (policy, revocation, throttling), on both databases.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const NEW_PASSWORD = 'violet-Harbor-quartz-58';

describe.each(databasesUnderTest())('own account on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // A small per-username limit, so the throttling of password checks shows within a few calls.
    t = await createTestApp(kind, { LOGIN_RATE_LIMIT_PER_USERNAME: '4' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const me = (token: string) => request(t.url).get('/api/auth/me').set('authorization', `Bearer ${token}`);
  const changePassword = (token: string, body: object) =>
    request(t.url).post('/api/auth/password').set('authorization', `Bearer ${token}`).send(body);

  it('GET /api/auth/me answers the login user shape, without hash or token version', async () => {
    const login = await request(t.url).post('/api/auth/login').send({ username: 'erin', password: TEST_PASSWORD });
    const response = await me(login.body.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user: login.body.user,
      settings: { timezone: 'UTC', urgentBypass: true, snoozedUntil: null },
    });
    expect(Object.keys(response.body.user).sort()).toEqual(
      ['createdAt', 'email', 'firstName', 'id', 'isActive', 'lastName', 'roles', 'username'].sort(),
    );
  });

  it('changing the password revokes every earlier token and answers a working one', async () => {
    const first = await t.login('alice');
    const second = await t.login('alice');
    const response = await changePassword(first, { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ token: expect.any(String), expiresIn: expect.any(Number) });
    expect((await me(first)).status).toBe(401);
    expect((await me(second)).status).toBe(401);
    expect((await me(response.body.token)).status).toBe(200);
    await expect(t.login('alice', TEST_PASSWORD)).rejects.toThrow(/401/);
    await t.login('alice', NEW_PASSWORD);
    // Back, for the other tests.
    const back = await changePassword(response.body.token, {
      currentPassword: NEW_PASSWORD,
      newPassword: TEST_PASSWORD,
    });
    expect(back.status).toBe(200);
  });

  it.each([
    ['short', 'Xq7-vb!', /at least 12 characters/],
    ['common', 'password1234', /too easy to guess.*commonly used/],
    ['containing the username', 'xx-Bob-quartz-violet-91', /must not contain the username/],
    ['a keyboard walk', 'qwertyuiop12', /too easy to guess/],
  ])(
    'refuses a %s password with 400 weak_password and its feedback, changing nothing',
    async (_name, weak, details) => {
      const token = await t.login('bob');
      const response = await changePassword(token, { currentPassword: TEST_PASSWORD, newPassword: weak });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'weak_password', details: expect.stringMatching(details) });
      expect((await me(token)).status).toBe(200); // not revoked
      await t.login('bob', TEST_PASSWORD);
    },
  );

  it('a wrong current password is 401 invalid_credentials and counts against the username limit (429)', async () => {
    const token = await t.login('erin');
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push(
        (await changePassword(token, { currentPassword: 'not-the-password-1', newPassword: NEW_PASSWORD })).status,
      );
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429]);
    // Login of that username is blocked too: one count for every password check.
    const login = await request(t.url).post('/api/auth/login').send({ username: 'erin', password: TEST_PASSWORD });
    expect(login.status).toBe(429);
    expect(login.headers['retry-after']).toMatch(/^\d+$/);
    expect((await me(token)).status).toBe(200);
  });

  it.each([
    [{ currentPassword: TEST_PASSWORD }, /newPassword/],
    [{ currentPassword: TEST_PASSWORD, newPassword: 'é'.repeat(513) }, /newPassword must be at most 1024 bytes/],
    [
      { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, username: 'x' },
      /property username should not exist/,
    ],
    [{ currentPassword: null, newPassword: NEW_PASSWORD }, /currentPassword/],
  ])('validates the body %#', async (body, details) => {
    const token = await t.login('admin');
    const response = await changePassword(token, body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringMatching(details) });
  });

  it('both need a valid token', async () => {
    expect((await request(t.url).get('/api/auth/me')).status).toBe(401);
    expect((await request(t.url).post('/api/auth/password').send({})).status).toBe(401);
  });
});
