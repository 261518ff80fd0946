import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_SEED_PASSWORD } from '../../src/config/configuration.js';
import { createTestDatabase, databasesUnderTest, testDataSource } from '../support/databases.js';
import { productionNodeOptions, startServiceProcess, stopServiceProcesses } from '../support/service-process.js';

// These run the built entry point (dist/src/main.js, built by the e2e global setup) as a real process.
const SEED_PASSWORD = 'Seeded-Password-Never-Logged-7';
const baseEnv = () => ({
  NODE_ENV: 'development',
  DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'dms-proc-')), 'db.sqlite')}`,
  JWT_SECRET: 'process-test-secret-0123456789abcdef',
  SEED_DEMO: 'true',
  SEED_PASSWORD,
  LOGIN_RATE_LIMIT_PER_IP: '1000',
  LOGIN_RATE_LIMIT_PER_USERNAME: '1000',
});

type LogEntry = Record<string, unknown>;

/** Every line of the service's stdout, parsed; a line that is not JSON fails the parse. */
const logEntries = (stdout: string): LogEntry[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogEntry;
      } catch {
        throw new Error(`a log line is not JSON: ${line}`);
      }
    });

/** The demo logins main.ts prints after seeding: one line per user with a document they may update. */
const demoLogins = (entries: LogEntry[]) =>
  entries
    .filter((entry) => entry.context === 'Seed' && typeof entry.username === 'string')
    .map((entry) => ({ username: entry.username as string, documentId: entry.documentId as string }));

const postLogin = (url: string, username: string, password: string) =>
  fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': `login-${username}` },
    body: JSON.stringify({ username, password }),
  });

describe('the service process', () => {
  // Whatever a failed test left running.
  afterAll(stopServiceProcesses);

  it('is started with the same Node options by npm run start:prod and by the Docker image', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
    expect(cmd).toBeDefined();
    const options = productionNodeOptions();
    // The memory bound measured by the bench depends on these (bench/README.md, "Memory and Node options").
    expect(options).toEqual(
      expect.arrayContaining([
        '--no-allocation-site-pretenuring',
        '--max-semi-space-size=8',
        '--max-old-space-size=256',
      ]),
    );
    expect(JSON.parse(cmd!)).toEqual(['node', ...options, 'dist/src/main.js']);
  });

  it('refuses to start on invalid configuration, naming the variable, without a stack trace', () => {
    const result = spawnSync(process.execPath, ['dist/src/main.js'], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', DATABASE_URL: 'sqlite::memory:' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/JWT_SECRET is required/);
    expect(result.stderr + result.stdout).not.toMatch(/\n\s+at /);
  });

  it('writes structured request logs without passwords or tokens', async () => {
    const service = await startServiceProcess({ ...baseEnv(), LOG_LEVEL: 'info' });
    const response = await postLogin(service.url, 'alice', SEED_PASSWORD);
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    const list = await fetch(`${service.url}/api/notifications?limit=5`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-me-1' },
    });
    expect(list.status).toBe(200);
    expect((await postLogin(service.url, 'bob', 'Wrong-Password-In-A-Log-9')).status).toBe(401);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const output = service.output();
    expect(output).not.toContain(SEED_PASSWORD);
    expect(output).not.toContain('Wrong-Password-In-A-Log-9');
    expect(output).not.toContain(token);
    expect(output).not.toContain(token.split('.')[2]);
    expect(output.toLowerCase()).not.toContain('bearer');

    const entries = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = entries.find((entry) => entry.reqId === 'trace-me-1' && entry.msg === 'request completed');
    expect(completed).toMatchObject({ level: 30, res: { statusCode: 200 } });
    expect(typeof completed!.responseTime).toBe('number');
    const incoming = entries.find((entry) => entry.reqId === 'trace-me-1' && entry.msg === 'incoming request');
    expect(incoming).toMatchObject({ req: { method: 'GET', path: '/api/notifications' } });
  });

  it('writes one log format: every stdout line is pino JSON, and the lines of a request carry its id', async () => {
    const env = { ...baseEnv(), LOG_LEVEL: 'info', DB_TIMEOUT_MS: '100' };
    const service = await startServiceProcess(env);
    const login = await postLogin(service.url, 'alice', SEED_PASSWORD);
    const { token } = (await login.json()) as { token: string };
    const [aliceLogin] = demoLogins(logEntries(service.stdout())).filter((entry) => entry.username === 'alice');

    // Another connection holds SQLite's write lock longer than DB_TIMEOUT_MS: the update answers 503,
    // and the error filter logs it (a Nest log line inside a request).
    const lock = await new DataSource({
      type: 'better-sqlite3',
      database: env.DATABASE_URL.slice('sqlite:'.length),
    }).initialize();
    await lock.query('BEGIN EXCLUSIVE');
    let status: number;
    try {
      const update = await fetch(`${service.url}/api/documents/${aliceLogin.documentId}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-request-id': 'locked-update-1',
        },
        body: JSON.stringify({ title: 'while locked' }),
      });
      status = update.status;
    } finally {
      await lock.query('ROLLBACK');
      await lock.destroy();
    }
    expect(status).toBe(503);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const entries = logEntries(service.stdout());
    for (const entry of entries) {
      expect(entry).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) });
    }
    // Nest's lines (start-up, seed, shutdown) and Fastify's are the same format.
    expect(entries).toContainEqual(expect.objectContaining({ level: 30, context: 'NestApplication' }));
    expect(entries).toContainEqual(expect.objectContaining({ level: 30, context: 'Shutdown' }));
    const request = entries.filter((entry) => JSON.stringify(entry).includes('locked-update-1'));
    expect(request.map((entry) => [entry.msg, entry.reqId])).toEqual([
      ['incoming request', 'locked-update-1'],
      ['request failed', 'locked-update-1'],
      ['request completed', 'locked-update-1'],
    ]);
    expect(request[1]).toMatchObject({ level: 50, status: 503, err: { code: 'SQLITE_BUSY' } });
    expect(service.stdout()).not.toContain(token);
  });

  it('with SEED_DEMO on a fresh database, prints /docs, the demo users, the development password and a document each can update', async () => {
    const { SEED_PASSWORD: _explicit, ...env } = { ...baseEnv(), LOG_LEVEL: 'info' };
    const service = await startServiceProcess(env);
    try {
      const entries = logEntries(service.stdout());
      const announcement = entries.find((entry) => entry.context === 'Seed' && entry.password !== undefined);
      expect(announcement).toMatchObject({ password: DEVELOPMENT_SEED_PASSWORD });
      expect(announcement!.msg).toContain(`${service.url}/docs`);
      expect(announcement!.msg).toContain(DEVELOPMENT_SEED_PASSWORD);
      expect((await fetch(`${service.url}/docs`)).status).toBe(200);

      const logins = demoLogins(entries);
      expect(logins.map((login) => login.username)).toEqual(['admin', 'alice', 'bob', 'erin']);
      for (const { username, documentId } of logins) {
        // What a reader copies from the log: the username, the password and the document id.
        const login = await postLogin(service.url, username, announcement!.password as string);
        expect(login.status).toBe(200);
        const { token } = (await login.json()) as { token: string };
        const update = await fetch(`${service.url}/api/documents/${documentId}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Edited by ${username}` }),
        });
        expect(update.status).toBe(200);
        expect(((await update.json()) as { document: { id: string; title: string } }).document).toMatchObject({
          id: documentId,
          title: `Edited by ${username}`,
        });
      }
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });

  it('on SIGTERM finishes in-flight requests, then exits 0 and stops accepting', async () => {
    // One hash at a time makes ten logins take a while; SIGTERM arrives once the service has
    // received all ten (its request log says so) and while most still wait for their hash.
    const service = await startServiceProcess({ ...baseEnv(), LOG_LEVEL: 'info', PASSWORD_HASH_CONCURRENCY: '1' });
    const inFlight = Array.from({ length: 10 }, () => postLogin(service.url, 'alice', SEED_PASSWORD));
    const logged = (message: string) =>
      service
        .output()
        .split('\n')
        .filter((line) => line.includes('"reqId":"login-alice"') && line.includes(`"msg":"${message}"`)).length;
    const received = () => logged('incoming request');
    const deadline = Date.now() + 10_000;
    while (received() < 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received()).toBe(10);
    const completedBeforeSignal = logged('request completed');
    service.child.kill('SIGTERM');
    const responses = await Promise.all(inFlight);
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(completedBeforeSignal).toBeLessThan(10);
    expect(await service.exited).toBe(0);
    await expect(fetch(`${service.url}/health/live`)).rejects.toThrow('fetch failed');
  });
});

describe.each(databasesUnderTest())('the service process on %s', (kind) => {
  it('on SIGTERM lets requests whose clients have gone finish their work before the database closes', async () => {
    const database = await createTestDatabase(kind);
    try {
      // One hash at a time: six logins queue behind each other, and each then writes its audit row.
      const service = await startServiceProcess({
        ...baseEnv(),
        DATABASE_URL: database.url,
        DB_MIGRATIONS_RUN: 'true',
        LOG_LEVEL: 'info',
        PASSWORD_HASH_CONCURRENCY: '1',
      });
      const { port } = new URL(service.url);
      const body = JSON.stringify({ username: 'alice', password: SEED_PASSWORD });
      const sockets = Array.from({ length: 6 }, (_, index) => {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(
          `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: gone-${index}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        return socket;
      });
      const received = () =>
        logEntries(service.stdout()).filter(
          (entry) => entry.msg === 'incoming request' && String(entry.reqId).startsWith('gone-'),
        ).length;
      const deadline = Date.now() + 10_000;
      while (received() < 6 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(received()).toBe(6);
      // Every client leaves, then the service is told to stop while the logins still wait for their hash.
      for (const socket of sockets) socket.destroy();
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);

      const entries = logEntries(service.stdout());
      expect(entries.filter((entry) => (entry.level as number) >= 50)).toEqual([]);
      const dataSource = await testDataSource(database).initialize();
      try {
        const rows: { requestId: string }[] = await dataSource.query(
          "SELECT requestId FROM audit_events WHERE action = 'auth.login_succeeded' AND requestId LIKE 'gone-%'",
        );
        expect(rows.map((row) => row.requestId).sort()).toEqual(
          Array.from({ length: 6 }, (_, index) => `gone-${index}`),
        );
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
