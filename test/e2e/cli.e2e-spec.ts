// The command-line tools, run as real processes on the built output (dist/), the way an operator runs them:
// the migration CLI, the demo seed and the user administration commands, on SQLite and on MySQL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verify } from '@node-rs/argon2';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseConfig } from '../../src/config/configuration.js';
import { validateEnvironment } from '../../src/config/environment.js';
import { appDataSourceOptions, MIGRATIONS } from '../../src/data-source.js';
import type { SeedSummary } from '../../src/seed/demo-seed.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import { ARGON2_OPTIONS } from '../../src/users/password-hasher.service.js';
import { createTestDatabase, databasesUnderTest, type TestDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (path: string) => join(ROOT, 'dist', path);
const SEED = dist('src/seed/seed.cli.js');
const CREATE_USER = dist('src/cli/create-user.cli.js');
const DEACTIVATE_USER = dist('src/cli/deactivate-user.cli.js');
const SET_PASSWORD = dist('src/cli/set-password.cli.js');
const SEED_PASSWORD = 'Seed-Password-For-CLI-Tests-1!';
const ARGON2_PREFIX = `$argon2id$v=19$m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}$`;

// Children run in an empty directory, so a developer's ./.env can never leak into them: all their
// configuration is the environment passed explicitly below.
let scratch: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>, input = ''): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: scratch, env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Exit code 0; on failure the diff shows the whole output. */
function expectSuccess(result: Result): void {
  expect(result).toMatchObject({ code: 0 });
}

/** A refusal an operator can read: non-zero exit, the expected message, no stack trace. */
function expectCleanFailure(result: Result, message: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

function openDataSource(database: TestDatabase): Promise<DataSource> {
  const config = databaseConfig.build(validateEnvironment({ DATABASE_URL: database.url }));
  return new DataSource(appDataSourceOptions(config)).initialize();
}

async function counts(dataSource: DataSource) {
  if (!(await dataSource.createQueryRunner().hasTable('users'))) return { users: 0, documents: 0, notifications: 0 };
  return {
    users: await dataSource.getRepository(User).count(),
    documents: await dataSource.getRepository(Document).count(),
    notifications: await dataSource.getRepository(Notification).count(),
  };
}

function findUser(dataSource: DataSource, username: string): Promise<User | null> {
  return dataSource
    .getRepository(User)
    .createQueryBuilder('user')
    .addSelect('user.passwordHash')
    .leftJoinAndSelect('user.roles', 'role')
    .where('user.username = :username', { username })
    .getOne();
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'dms-cli-'));
  // The tools are tested as shipped, from dist/. The e2e global setup builds it before any suite runs;
  // build here only when it is missing (rebuilding while other suites run dist/ processes would race).
  if (
    ![SEED, CREATE_USER, DEACTIVATE_USER, SET_PASSWORD, dist('ormconfig.js'), dist('src/main.js')].every((file) =>
      existsSync(file),
    )
  ) {
    const build = await run(
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
      {},
    );
    if (build.code !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
  }
}, 180_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe.each(databasesUnderTest())('the command-line tools on %s', (kind) => {
  describe('migration:run (the TypeORM CLI on dist/ormconfig.js)', () => {
    let database: TestDatabase;
    const migrate = () =>
      run([join(ROOT, 'node_modules/typeorm/cli.js'), 'migration:run', '-d', dist('ormconfig.js')], {
        DATABASE_URL: database.url,
        NODE_ENV: 'production',
      });

    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('brings an empty database to the latest schema, and a second run is a no-op', async () => {
      const first = await migrate();
      expectSuccess(first);

      const dataSource = await openDataSource(database);
      try {
        const queryRunner = dataSource.createQueryRunner();
        const missing = [];
        for (const table of ['users', 'roles', 'user_roles', 'documents', 'notifications', 'notification_counts']) {
          if (!(await queryRunner.hasTable(table))) missing.push(table);
        }
        expect(missing).toEqual([]);
        await queryRunner.release();
        expect(await dataSource.showMigrations()).toBe(false); // false: nothing pending
        const applied = await dataSource.query('SELECT name FROM migrations ORDER BY id');
        expect(applied.map((row: { name: string }) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));

        const second = await migrate();
        expectSuccess(second);
        expect(second.stdout).toMatch(/No migrations are pending/);
        expect(await dataSource.query('SELECT name FROM migrations ORDER BY id')).toEqual(applied);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  describe('seed', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    const seed = (env: Record<string, string> = {}) =>
      run([SEED, '--json'], { DATABASE_URL: database.url, NODE_ENV: 'development', ...env });

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      dataSource = await openDataSource(database);
    });
    afterAll(async () => {
      await dataSource?.destroy();
      await database?.drop();
    });

    it('refuses a SEED_PASSWORD the password policy refuses, naming the reason', async () => {
      const result = await seed({ SEED_PASSWORD: 'password1234' });
      expectCleanFailure(result, /Seed refused: SEED_PASSWORD is refused for admin: The password is too easy to guess/);
    });

    it('refuses in production without SEED_PASSWORD, even on an empty database', async () => {
      const result = await seed({ NODE_ENV: 'production' });
      expectCleanFailure(result, /SEED_PASSWORD/);
      expect(await counts(dataSource)).toEqual({ users: 0, documents: 0, notifications: 0 });
    });

    it('fills an empty database and prints the summary as JSON on its last line', async () => {
      const result = await seed({ SEED_PASSWORD });
      expectSuccess(result);
      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as SeedSummary;

      expect(summary.users.length).toBeGreaterThanOrEqual(3);
      for (const user of summary.users) {
        expect(user).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          username: expect.any(String),
          password: SEED_PASSWORD,
          roles: expect.any(Array),
        });
      }
      expect(summary.users.some((user) => user.roles.includes('admin'))).toBe(true);
      const userIds = summary.users.map((user) => user.id);
      expect(summary.documents.length).toBeGreaterThanOrEqual(6);
      for (const document of summary.documents) {
        expect(document).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), uploadedBy: expect.any(String) });
        expect(userIds).toContain(document.uploadedBy);
      }
      const [busiest, busiestCount] = Object.entries(summary.notifications).sort(([, a], [, b]) => b - a)[0];
      expect(busiestCount).toBeGreaterThanOrEqual(60);

      // The summary is what the database holds.
      expect(await counts(dataSource)).toEqual({
        users: summary.users.length,
        documents: summary.documents.length,
        notifications: Object.values(summary.notifications).reduce((a, b) => a + b, 0),
      });
      for (const [userId, count] of Object.entries(summary.notifications)) {
        expect(await dataSource.getRepository(Notification).countBy({ userId })).toBe(count);
      }
      const admin = await findUser(dataSource, summary.users.find((user) => user.roles.includes('admin'))!.username);
      expect(admin!.passwordHash.startsWith(ARGON2_PREFIX)).toBe(true);
      expect(await verify(admin!.passwordHash, SEED_PASSWORD)).toBe(true);
      const documents = await dataSource.getRepository(Document).find();
      expect(new Set(documents.map((document) => document.status))).toEqual(new Set(['draft']));

      // The busiest user's notifications cover every status x type pair; readAt is set exactly on the read ones.
      const notifications = await dataSource.getRepository(Notification).findBy({ userId: busiest });
      const pairs = new Set(notifications.map((n) => `${n.status}/${n.notificationType}`));
      expect(pairs.size).toBe(NOTIFICATION_STATUSES.length * NOTIFICATION_TYPES.length);
      expect(notifications.filter((n) => (n.readAt !== null) !== (n.status === 'read'))).toEqual([]);
    });

    it('refuses a second run with a clear message and changes nothing', async () => {
      const before = await counts(dataSource);
      const result = await seed({ SEED_PASSWORD });
      expectCleanFailure(result, /already has users/);
      expect(await counts(dataSource)).toEqual(before);
    });
  });

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
        cwd: scratch,
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
        await waitForLive(base, () => appErrors);
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForLive(base: string, errors: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the app did not answer /health/live within 20 s:\n${errors()}`);
}
