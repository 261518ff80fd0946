// The user administration commands, run as real processes on dist/, on SQLite and on MySQL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { verify } from '@node-rs/argon2';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../src/users/entities/user.entity.js';
import { createTestDatabase, databasesUnderTest, type TestDatabase } from '../support/databases.js';
import {
  dist,
  SEED,
  CREATE_USER,
  DEACTIVATE_USER,
  SET_PASSWORD,
  SEED_PASSWORD,
  ARGON2_PREFIX,
  run,
  scratchDirectory,
  expectSuccess,
  expectCleanFailure,
  openDataSource,
  counts,
  findUser,
  freePort,
  waitForLive,
  prepareCliRuns,
} from '../support/cli.js';

prepareCliRuns();

describe.each(databasesUnderTest())('the user administration commands on %s', (kind) => {
  describe('user:create and user:deactivate', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    let env: Record<string, string>;
    let seededOutput: string;
    const createUser = (args: string[], input = '', extraEnv: Record<string, string> = {}) =>
      run([CREATE_USER, ...args], { ...env, ...extraEnv }, input);
    const deactivateUser = (username: string) => run([DEACTIVATE_USER, '--username', username], env);
    const setPassword = (username: string, input: string) => run([SET_PASSWORD, '--username', username], env, input);
    // prettier-ignore
    const flags = (username: string, roles = 'admin,user') => [
      '--username', username, '--email', `${username}@example.org`,
      '--first-name', 'Carol', '--last-name', 'Admin', '--roles', roles,
    ];

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      env = { DATABASE_URL: database.url, NODE_ENV: 'production' };
      const seeded = await run([SEED], { ...env, SEED_PASSWORD }); // the roles admin, editor and user
      if (seeded.code !== 0) throw new Error(`the seed failed: ${seeded.stderr}`);
      seededOutput = seeded.stdout;
      dataSource = await openDataSource(database);
    });
    afterAll(async () => {
      await dataSource?.destroy();
      await database?.drop();
    });

    it('seed (without --json) lists each demo user with a document id, and never prints SEED_PASSWORD', async () => {
      const users = await dataSource.getRepository(User).find();
      for (const user of users) {
        expect(seededOutput).toMatch(new RegExp(`^  ${user.username} .* document [0-9a-f-]{36}$`, 'm'));
      }
      expect(seededOutput).toContain('the password set in SEED_PASSWORD');
      expect(seededOutput).not.toContain(SEED_PASSWORD);
    });

    it('runs in production without a JWT key, and refuses a bad variable naming it', async () => {
      // env has NODE_ENV=production and no JWT_SECRET: the tools load only the configuration they use.
      const result = await run([DEACTIVATE_USER, '--username', 'nobody'], { ...env, DB_TIMEOUT_MS: 'soon' });
      expectCleanFailure(result, /user:deactivate: configuration error: DB_TIMEOUT_MS must be an integer, got "soon"/);
    });

    it('creates a user with the password from standard input, hashed with argon2id', async () => {
      const password = 'Plum-Pässword-1! with spaces ';
      const result = await createUser(flags('carol'), `${password}\nignored second line\n`);
      expectSuccess(result);
      expect(result.stdout).toMatch(/Created user carol/);
      expect(result.stdout + result.stderr).not.toContain(password.trim());

      const carol = await findUser(dataSource, 'carol');
      expect(carol).toMatchObject({
        email: 'carol@example.org',
        firstName: 'Carol',
        lastName: 'Admin',
        isActive: true,
        tokenVersion: 0,
      });
      expect(carol!.roles.map((role) => role.name).sort()).toEqual(['admin', 'user']);
      expect(carol!.passwordHash.startsWith(ARGON2_PREFIX)).toBe(true);
      expect(await verify(carol!.passwordHash, password)).toBe(true);
    });

    it('takes the password from NEW_USER_PASSWORD when it is set, and roles are optional', async () => {
      const args = ['--username', 'dave', '--email', 'dave@example.org', '--first-name', 'Dave', '--last-name', 'D'];
      const result = await createUser(args, 'not-this-one\n', { NEW_USER_PASSWORD: 'Lantern-Cobalt-Password-7!' });
      expectSuccess(result);
      const dave = await findUser(dataSource, 'dave');
      expect(dave!.roles).toEqual([]);
      expect(await verify(dave!.passwordHash, 'Lantern-Cobalt-Password-7!')).toBe(true);
    });

    it('refuses a duplicate username or e-mail address with a clear message', async () => {
      const before = await counts(dataSource);
      expectCleanFailure(await createUser(flags('carol'), 'x\n'), /username already exists/);
      expectCleanFailure(await createUser(flags('CAROL'), 'x\n'), /username already exists/);
      const sameEmail = [...flags('carol2')];
      sameEmail[3] = 'Carol@Example.org';
      expectCleanFailure(await createUser(sameEmail, 'x\n'), /email already exists/);
      expect(await counts(dataSource)).toEqual(before);
    });

    it('refuses an unknown role and names the roles that exist', async () => {
      const result = await createUser(flags('frank', 'admin,superuser'), 'Frank-Password-1!\n');
      expectCleanFailure(result, /Unknown role\(s\): superuser\. Existing roles: admin, editor, user/);
      expect(await findUser(dataSource, 'frank')).toBeNull();
    });

    it('refuses invalid input with a message naming the problem', async () => {
      const before = await counts(dataSource);
      const cases: [string[], string, RegExp][] = [
        [flags('bad\u0007name'), 'x\n', /username must not contain control characters/],
        [flags(' padded'), 'x\n', /username must not start or end with whitespace/],
        [flags('x'.repeat(256)), 'x\n', /username must be shorter than or equal to 255 characters/],
        // 401 code points that class-validator's MaxLength counted as 1: the API's bound holds here too.
        [flags(`a${'\uFE0F'.repeat(400)}`), 'x\n', /username must be shorter than or equal to 255 characters/],
        [[...flags('gina').slice(0, 3), 'not-an-email', ...flags('gina').slice(4)], 'x\n', /email must be an e-mail/],
        [flags('gina'), '\n', /password should not be empty/],
        [flags('gina'), '', /No password given/],
        [flags('gina'), `${'é'.repeat(513)}\n`, /password must be at most 1024 bytes/],
        [['--username', 'gina'], 'x\n', /Missing --email, --first-name, --last-name/],
        [[...flags('gina'), '--admin'], 'x\n', /Unknown option '--admin'/],
      ];
      // All are refused before the database is touched, so they can run side by side.
      const results = await Promise.all(cases.map(([args, input]) => createUser(args, input)));
      results.forEach((result, index) => expectCleanFailure(result, cases[index][2]));
      expect(await counts(dataSource)).toEqual(before);
    });

    it('deactivates a user: isActive becomes false and tokenVersion moves on', async () => {
      const before = await findUser(dataSource, 'dave');
      const result = await deactivateUser('dave');
      expectSuccess(result);
      expect(result.stdout).toMatch(/Deactivated user dave/);
      const after = await findUser(dataSource, 'dave');
      expect(after).toMatchObject({ isActive: false, tokenVersion: before!.tokenVersion + 1 });
      const raw = await dataSource.query('SELECT isActive FROM users WHERE username = ?', ['dave']);
      expect(Number(raw[0].isActive)).toBe(0);
    });

    it('refuses a weak password with the reason of the policy (user:create), creating nothing', async () => {
      const before = await counts(dataSource);
      expectCleanFailure(
        await createUser(flags('ida'), 'password1234\n'),
        /user:create: The password is too easy to guess/,
      );
      expectCleanFailure(await createUser(flags('ida'), 'ida-Lantern-cobalt-4\n'), /must not contain the username/);
      expectCleanFailure(await createUser(flags('ida'), 'Short-1!\n'), /at least 12 characters/);
      expect(await counts(dataSource)).toEqual(before);
    });

    it('user:set-password sets a new password through the policy and revokes every token', async () => {
      const before = await findUser(dataSource, 'carol');
      expectCleanFailure(await setPassword('carol', 'qwertyuiop12\n'), /user:set-password: The password is too easy/);
      expect((await findUser(dataSource, 'carol'))!.passwordHash).toBe(before!.passwordHash);
      const password = 'Velvet-Orchard-Signal-31';
      const result = await setPassword('carol', `${password}\n`);
      expectSuccess(result);
      expect(result.stdout).toMatch(/Set a new password for carol/);
      expect(result.stdout + result.stderr).not.toContain(password);
      const after = await findUser(dataSource, 'carol');
      expect(after!.tokenVersion).toBe(before!.tokenVersion + 1);
      expect(await verify(after!.passwordHash, password)).toBe(true);
      expectCleanFailure(await setPassword('nobody', `${password}\n`), /No user named "nobody"/);
      expectCleanFailure(await run([SET_PASSWORD], env), /Missing --username/);
    });

    it('refuses to deactivate an unknown user', async () => {
      expectCleanFailure(await deactivateUser('nobody'), /No user named "nobody"/);
      expectCleanFailure(await run([DEACTIVATE_USER], env), /Missing --username/);
    });

    it('a created user logs in to the built app; after deactivation its token and login are refused', async () => {
      const password = 'Quartz-Meadow-Password-9!';
      expect((await createUser(flags('henry', 'user'), `${password}\n`)).code).toBe(0);

      const port = await freePort();
      const app = spawn(process.execPath, [dist('src/main.js')], {
        cwd: scratchDirectory(),
        env: {
          PATH: process.env.PATH ?? '',
          ...env,
          HOST: '127.0.0.1',
          PORT: String(port),
          JWT_SECRET: randomBytes(32).toString('hex'),
          DB_MIGRATIONS_RUN: 'true',
          LOG_LEVEL: 'error',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let appErrors = '';
      app.stderr.on('data', (chunk: Buffer) => (appErrors += chunk.toString()));
      const base = `http://127.0.0.1:${port}`;
      try {
        await waitForLive(base, app, () => appErrors);
        const login = () =>
          fetch(`${base}/api/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'henry', password }),
          });
        const first = await login();
        expect(first.status).toBe(200);
        const { token, user } = (await first.json()) as { token: string; user: { username: string; roles: unknown[] } };
        expect(user.username).toBe('henry');
        const list = () => fetch(`${base}/api/notifications`, { headers: { authorization: `Bearer ${token}` } });
        expect((await list()).status).toBe(200);

        expect((await deactivateUser('henry')).code).toBe(0);
        expect((await list()).status).toBe(401);
        expect((await login()).status).toBe(401);
      } finally {
        app.kill();
      }
    });
  });
});
