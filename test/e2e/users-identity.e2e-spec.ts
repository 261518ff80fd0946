// Account identifiers: usernames match exactly at login (no trailing-space or case look-alikes,
// even under MariaDB's PAD SPACE collations), and no two accounts share a username or e-mail
// address up to case and Unicode forms (identityKey), on SQLite as on MariaDB.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/errors/error-codes.js';
import { User } from '../../src/users/entities/user.entity.js';
import { UsersService, type CreateUserInput } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('account identifiers on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = (username: string, password = TEST_PASSWORD) =>
    request(t.url).post('/api/auth/login').send({ username, password });
  const input = (username: string, email = `${username}@example.org`): CreateUserInput => ({
    username,
    email,
    firstName: 'First',
    lastName: 'Last',
    password: TEST_PASSWORD,
    roleNames: ['user'],
  });
  const users = () => t.app.get(UsersService);
  const count = () => t.dataSource.getRepository(User).count();
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  describe('login', () => {
    it('matches the username exactly: trailing or leading spaces and other case are 401', async () => {
      expect((await login('alice')).status).toBe(200);
      for (const lookalike of ['alice ', 'alice   ', ' alice', 'Alice', 'ALICE']) {
        const response = await login(lookalike);
        expect({ lookalike, status: response.status, error: response.body.error }).toEqual({
          lookalike,
          status: 401,
          error: 'invalid_credentials',
        });
      }
    });

    it('deactivation by username matches exactly too', async () => {
      await expect(users().deactivate('alice   ')).resolves.toBe(false);
      await expect(users().findByUsername('alice ')).resolves.toBeNull();
      expect((await login('alice')).status).toBe(200);
    });
  });

  describe('creating users', () => {
    it('refuses a username equal to an existing one up to case and Unicode forms (émile, then Émile)', async () => {
      const before = await count();
      await users().create(input('émile'));
      // "Émile" typed as E + combining acute accent (NFD) and as one precomposed character.
      for (const lookalike of ['Émile', 'E\u0301mile', 'ÉMILE']) {
        const error = await refusal(users().create(input(lookalike, `${lookalike.length}-${Date.now()}@example.org`)));
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({ code: 'conflict', status: 409, details: expect.stringMatching(/username/) });
      }
      expect(await count()).toBe(before + 1);
    });

    it('refuses an e-mail address equal to an existing one up to case, naming the field', async () => {
      const before = await count();
      const error = await refusal(users().create(input('someone-new', 'ALICE@EXAMPLE.COM')));
      expect(error).toMatchObject({ code: 'conflict', details: expect.stringMatching(/email/) });
      expect(await count()).toBe(before);
    });

    it('refuses unknown roles with a coded error and creates nothing', async () => {
      const before = await count();
      const error = await refusal(users().create({ ...input('rolf'), roleNames: ['user', 'no-such-role'] }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'validation_failed', details: expect.stringMatching(/no-such-role/) });
      expect(await count()).toBe(before);
    });

    it('stores the identity keys and lets the new user log in by the exact name', async () => {
      const created = await users().create(input('Zoë', 'Zoe@Example.org'));
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: created.id });
      expect(stored).toMatchObject({
        username: 'Zoë',
        usernameKey: 'zoë',
        email: 'Zoe@example.org', // the domain is stored in lower case, the local part as typed
        emailKey: 'zoe@example.org',
      });
      expect((await login('Zoë')).status).toBe(200);
      expect((await login('zoë')).status).toBe(401);
    });
  });
});
