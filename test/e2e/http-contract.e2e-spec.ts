import { connect } from 'node:net';
import type { LoggerService } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../src/auth/auth.service.js';
import { InFlightRequests } from '../../src/common/http/in-flight-requests.js';
import { databasesUnderTest, testDataSource } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const WRITE_CONFLICT = 'Concurrent changes to the same data kept conflicting; retry shortly.';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Writes bytes on a fresh connection and reads until the server closes it (or the answer is complete). */
function rawExchange(url: string, bytes: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const finish = () => {
      socket.destroy();
      const [head, ...rest] = received.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const text = rest.join('\r\n\r\n');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // left as text: the assertions say what was expected
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const [head, ...rest] = received.split('\r\n\r\n');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
      if (rest.length && length !== undefined && Buffer.byteLength(rest.join('\r\n\r\n')) >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(databasesUnderTest())('the HTTP contract on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let documentId: string;

  const snapshot = async () =>
    JSON.stringify(
      await t.dataSource.query(
        'SELECT title, description, tags, metadata, rowVersion, updatedAt FROM documents WHERE id = ?',
        [documentId],
      ),
    );

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('alice');
    documentId = t.seed.documents.find((document) => document.uploadedBy === t.user('alice').id)!.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers unknown routes 404 route_not_found whatever the body or content type', async () => {
    const calls = [
      request(t.url).put('/nonexistent'),
      request(t.url).post('/nonexistent'),
      request(t.url).put('/nonexistent').set('content-type', 'text/plain').send('hello'),
      request(t.url).post('/nonexistent').set('content-type', 'text/plain').send('hello'),
      request(t.url).post('/api/nonexistent').set('content-type', 'application/json').send('{"broken":'),
      request(t.url).put('/nonexistent').set('content-type', 'application/json').send('[1, 2]'),
      request(t.url).patch('/api/documents').type('form').send({ a: 1 }),
    ];
    for (const call of calls) {
      const response = await call;
      expect(response.status, response.text).toBe(404);
      expect(response.body).toEqual({ error: 'route_not_found', details: expect.any(String) });
      expect(response.headers['x-request-id']).toMatch(REQUEST_ID);
    }
  });

  it('answers an HTTP/1.1 request without Host 400 bad_request with a body and a request id', async () => {
    const answer = await rawExchange(t.url, 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'bad_request', details: expect.stringMatching(/Host/) });
    expect(answer.headers['x-request-id']).toMatch(REQUEST_ID);
    // HTTP/1.0 has no Host requirement.
    const old = await rawExchange(t.url, 'GET /health/live HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('refuses unknown body fields named after Object.prototype members, and changes nothing', async () => {
    const before = await snapshot();
    for (const body of [
      '{"toString": "x"}',
      '{"valueOf": 1}',
      '{"hasOwnProperty": "x"}',
      '{"__defineGetter__": 1}',
      '{"isPrototypeOf": 1}',
      '{"propertyIsEnumerable": 1, "title": "not applied"}',
      '{"toLocaleString": "x"}',
    ]) {
      const response = await request(t.url)
        .put(`/api/documents/${documentId}`)
        .set('authorization', `Bearer ${token}`)
        .set('content-type', 'application/json')
        .send(body);
      expect(response.status, body).toBe(400);
      const key = Object.keys(JSON.parse(body))[0];
      expect(response.body).toEqual({ error: 'validation_failed', details: `property ${key} should not exist` });
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses unknown query parameters named after Object.prototype members', async () => {
    for (const name of ['toString', 'valueOf', 'isPrototypeOf', 'constructor', '__proto__', 'hasOwnProperty']) {
      const response = await request(t.url).get(`/api/notifications?${name}=1`).set('authorization', `Bearer ${token}`);
      expect(response.status, name).toBe(400);
      expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringContaining(name) });
    }
  });

  it('refuses an extra Object.prototype-named field in the login body', async () => {
    for (const extra of ['toString', 'valueOf', '__defineSetter__']) {
      const response = await request(t.url)
        .post('/api/auth/login')
        .set('content-type', 'application/json')
        .send(`{"username": "alice", "password": "${TEST_PASSWORD}", "${extra}": "x"}`);
      expect(response.status, extra).toBe(400);
      expect(response.body).toEqual({ error: 'validation_failed', details: `property ${extra} should not exist` });
    }
  });

  it('accepts document ids in any case and answers with the lower-case id', async () => {
    const upper = documentId.toUpperCase();
    const update = await request(t.url)
      .put(`/api/documents/${upper}`)
      .set('authorization', `Bearer ${token}`)
      .send({ title: 'Found by an upper-case id' });
    expect(update.status).toBe(200);
    expect(update.body.document).toMatchObject({ id: documentId, title: 'Found by an upper-case id' });

    const mixed = documentId.replace(/[a-f]/g, (c, index: number) => (index % 2 ? c.toUpperCase() : c));
    const history = await request(t.url).get(`/api/documents/${mixed}/history`).set('authorization', `Bearer ${token}`);
    expect(history.status).toBe(200);
    expect(history.body.history[0]).toMatchObject({ documentId, changes: { title: expect.any(Object) } });

    const unknown = await request(t.url)
      .put('/api/documents/0000000A-0000-4000-8000-00000000000B')
      .set('authorization', `Bearer ${token}`)
      .send({});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'document_not_found', details: expect.stringContaining('0000000a') });
  });

  it('sends X-Request-Id on every answer, including the ones given before Nest sees the request', async () => {
    const answers = [
      await request(t.url).get('/nope'),
      await request(t.url).post('/api/auth/login').set('content-type', 'text/plain').send('x'),
      await request(t.url).post('/api/auth/login').set('content-type', 'application/json').send('{"a":'),
      await request(t.url)
        .post('/api/auth/login')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10), password: 'x' })),
      await request(t.url)
        .put(`/api/documents/${'a'.repeat(500)}`)
        .set('authorization', `Bearer ${token}`)
        .send({}),
      await request(t.url).put('/api/documents/%E0%A4%A').set('authorization', `Bearer ${token}`).send({}),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 415, 400, 413, 400, 400]);
    for (const answer of answers) {
      expect(Object.keys(answer.body).sort()).toEqual(['details', 'error']);
      expect(answer.headers['x-request-id']).toMatch(REQUEST_ID);
    }

    const huge = await rawExchange(
      t.url,
      `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Filler: ${'x'.repeat(70_000)}\r\n\r\n`,
    );
    expect(huge.status).toBe(431);
    expect(huge.body).toEqual({ error: 'headers_too_large', details: expect.any(String) });
    expect(huge.headers['x-request-id']).toMatch(REQUEST_ID);

    const garbage = await rawExchange(t.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ error: 'bad_request', details: expect.any(String) });
    expect(garbage.headers['x-request-id']).toMatch(REQUEST_ID);
  });
});

/** Keeps what the application logs, by level, so a test can say what was (not) logged as an error. */
class CapturingLogger implements LoggerService {
  readonly lines: { level: string; message: unknown }[] = [];
  log(message: unknown) {
    this.lines.push({ level: 'log', message });
  }
  error(message: unknown) {
    this.lines.push({ level: 'error', message });
  }
  warn(message: unknown) {
    this.lines.push({ level: 'warn', message });
  }
  debug(message: unknown) {
    this.lines.push({ level: 'debug', message });
  }
  verbose(message: unknown) {
    this.lines.push({ level: 'verbose', message });
  }
  fatal(message: unknown) {
    this.lines.push({ level: 'fatal', message });
  }
  errors() {
    return this.lines.filter((line) => line.level === 'error' || line.level === 'fatal');
  }
}

describe.each(databasesUnderTest())('request timeouts on %s', (kind) => {
  let t: TestApp;
  let logger: CapturingLogger;
  beforeAll(async () => {
    t = await createTestApp(kind, { REQUEST_TIMEOUT_MS: '300', DB_TIMEOUT_MS: '1000' });
    logger = new CapturingLogger();
    t.app.useLogger(logger);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a client that stops mid-body 408 request_timeout, closes, and logs no error', async () => {
    const documentId = t.seed.documents[0].id;
    for (const head of [`PUT /api/documents/${documentId} HTTP/1.1`, 'POST /api/auth/login HTTP/1.1']) {
      logger.lines.length = 0;
      // Promises ten bytes, sends two, then waits: no upper time bound, the server must end it.
      const answer = await rawExchange(
        t.url,
        `${head}\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}`,
      );
      expect(answer.status, head).toBe(408);
      expect(answer.body).toEqual({ error: 'request_timeout', details: expect.any(String) });
      expect(answer.headers['x-request-id']).toMatch(REQUEST_ID);
      expect(answer.headers.connection).toBe('close');
      expect(logger.errors()).toEqual([]);
    }
    // The service is fine afterwards.
    expect((await request(t.url).get('/health/live')).status).toBe(200);
  });

  it('never answers 503 to a write that has started: it finishes once the lock is released', async () => {
    // In process: an HTTP login could itself pass the 300 ms deadline on a busy machine.
    const { token } = await t.app.get(AuthService).login({ username: 'alice', password: TEST_PASSWORD });
    const documentId = t.seed.documents.find((document) => document.uploadedBy === t.user('alice').id)!.id;
    const inFlight = t.app.get(InFlightRequests);
    const release = await holdDocumentRow(t, documentId);
    const before = inFlight.count;
    let write: Promise<request.Response> | undefined;
    let answered = false;
    try {
      write = request(t.url)
        .put(`/api/documents/${documentId}`)
        .set('authorization', `Bearer ${token}`)
        .send({ title: 'waits for the lock' })
        .then((response) => {
          answered = true;
          return response;
        });
      // The write arrived (or, on SQLite, may already be answered: its driver never yields while it waits).
      await until(() => inFlight.count > before || answered);
      // A probe that arrives after the write and stops mid-body: its 408 means the write's deadline passed too.
      const probe = await rawExchange(
        t.url,
        `PUT /api/documents/${documentId} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}`,
      );
      expect(probe.status).toBe(408);
    } finally {
      await release();
    }
    const response = await write;
    const outcome = {
      status: response.status,
      committed: (await currentTitle(t, documentId)) === 'waits for the lock',
      details: response.status === 200 ? null : (response.body as { details?: string }).details,
    };
    // Only the database may refuse it (SQLite's busy writer given up): then nothing changed.
    expect([
      { status: 200, committed: true, details: null },
      { status: 503, committed: false, details: WRITE_CONFLICT },
    ]).toContainEqual(outcome);
  });
});

/** Polls a condition of this process's own state, yielding to the server between polls (a generous bound). */
async function until(condition: () => boolean): Promise<void> {
  const giveUp = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > giveUp) throw new Error('condition not met within 30 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function currentTitle(t: TestApp, documentId: string): Promise<string> {
  const rows = await t.dataSource.query<{ title: string }[]>('SELECT title FROM documents WHERE id = ?', [documentId]);
  return rows[0].title;
}

/** Holds a write lock on a document from a second connection; answers the function that releases it. */
async function holdDocumentRow(t: TestApp, documentId: string): Promise<() => Promise<void>> {
  const other = await testDataSource(t.database).initialize();
  const runner = other.createQueryRunner();
  await runner.startTransaction();
  await runner.query('UPDATE documents SET title = title WHERE id = ?', [documentId]);
  return async () => {
    await runner.rollbackTransaction();
    await runner.release();
    await other.destroy();
  };
}
