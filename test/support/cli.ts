// Running the command-line tools as real processes on the built output (dist/), the way an operator runs them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { databaseConfig } from '../../src/config/configuration.js';
import { validateEnvironment } from '../../src/config/environment.js';
import { appDataSourceOptions } from '../../src/data-source.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { Notification } from '../../src/notifications/entities/notification.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import { ARGON2_OPTIONS } from '../../src/users/password-hasher.service.js';
import { type TestDatabase } from '../support/databases.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const dist = (path: string) => join(ROOT, 'dist', path);
export const SEED = dist('src/seed/seed.cli.js');
export const CREATE_USER = dist('src/cli/create-user.cli.js');
export const DEACTIVATE_USER = dist('src/cli/deactivate-user.cli.js');
export const SET_PASSWORD = dist('src/cli/set-password.cli.js');
export const SEED_PASSWORD = 'Seed-Password-For-CLI-Tests-1!';
export const ARGON2_PREFIX = `$argon2id$v=19$m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}$`;

// Children run in an empty directory, so a developer's ./.env can never leak into them: all their
// configuration is the environment passed explicitly below.
let scratch: string;

/** The empty directory the children run in. */
export const scratchDirectory = (): string => scratch;

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(args: string[], env: Record<string, string>, input = ''): Promise<Result> {
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
export function expectSuccess(result: Result): void {
  expect(result).toMatchObject({ code: 0 });
}

/** A refusal an operator can read: non-zero exit, the expected message, no stack trace. */
export function expectCleanFailure(result: Result, message: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

export function openDataSource(database: TestDatabase): Promise<DataSource> {
  const config = databaseConfig.build(validateEnvironment({ DATABASE_URL: database.url }));
  return new DataSource(appDataSourceOptions(config)).initialize();
}

export async function counts(dataSource: DataSource) {
  if (!(await dataSource.createQueryRunner().hasTable('users'))) return { users: 0, documents: 0, notifications: 0 };
  return {
    users: await dataSource.getRepository(User).count(),
    documents: await dataSource.getRepository(Document).count(),
    notifications: await dataSource.getRepository(Notification).count(),
  };
}

export function findUser(dataSource: DataSource, username: string): Promise<User | null> {
  return dataSource
    .getRepository(User)
    .createQueryBuilder('user')
    .addSelect('user.passwordHash')
    .leftJoinAndSelect('user.roles', 'role')
    .where('user.username = :username', { username })
    .getOne();
}

/** Registers the suite's hooks: a scratch directory for the children, and dist/ built if missing. */
export function prepareCliRuns(): void {
  // Each test runs node processes (argon2, migrations): its time depends on the machine, not on the code.
  vi.setConfig({ testTimeout: 180_000 });
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
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits for the app's liveness, or fails with its output once it has exited; the test's timeout bounds the wait. */
export async function waitForLive(base: string, app: ChildProcess, errors: () => string): Promise<void> {
  for (;;) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(`the app exited before it was live:\n${errors()}`);
    try {
      if ((await fetch(`${base}/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
