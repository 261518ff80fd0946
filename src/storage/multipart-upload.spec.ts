/**
 * readMultipartUpload on a real Fastify 5 server with @fastify/multipart, over real HTTP: fetch +
 * FormData for well-formed requests, hand-built bodies for the malformed ones, and raw sockets for
 * a body cut short or too large. Every refusal is checked to leave nothing in the store or its tmp/.
 */
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fastifyMultipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mapError } from '../common/errors/error-mapping.js';
import { rejectBeforeBody } from '../common/http/request-guards.js';
import { LocalFileStore } from './local-file-store.js';
import {
  cleanFileName,
  isMultipartUploadRoute,
  MULTIPART_PLUGIN_OPTIONS,
  MULTIPART_UPLOAD_ROUTE,
  readMultipartUpload,
} from './multipart-upload.js';

const LIMIT = 64 * 1024;
const BIG_LIMIT = 32 * 1024 * 1024;
const BOUNDARY = '----dms-test-boundary-7MA4YWxkTrZu0gW';
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

type Part = { name: string; value: string } | { name: string; filename?: string; type?: string; data: Buffer };

function partHead(part: Part): string {
  let disposition = `Content-Disposition: form-data; name="${part.name}"`;
  if ('data' in part) {
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    disposition += `\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
  }
  return `--${BOUNDARY}\r\n${disposition}\r\n\r\n`;
}

/** A multipart/form-data body built by hand, so that it can be anything a client might send. */
function multipartBody(parts: Part[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(partHead(part)), 'data' in part ? part.data : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * The first response on `socket`: complete once its Content-Length has arrived, or when the server
 * closes the connection (a reset after the answer is fine).
 */
function responseOf(socket: Socket): Promise<RawResponse> {
  const chunks: Buffer[] = [];
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    const complete = () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd < 0) return false;
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.subarray(0, headEnd).toString('latin1'));
      return length !== null && raw.length >= headEnd + 4 + Number(length[1]);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (complete()) resolve(parseResponse(Buffer.concat(chunks)));
    });
    socket.once('close', () => resolve(parseResponse(Buffer.concat(chunks))));
  });
}

describe('readMultipartUpload on a real Fastify server', () => {
  let root: string;
  let store: LocalFileStore;
  let app: FastifyInstance;
  let base: string;
  let port: number;
  /** Emits 'settled' each time an upload handler has finished, whatever its outcome. */
  const handlers = new EventEmitter();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'multipart-upload-'));
    store = new LocalFileStore(root, 'unit-test');
    await store.onModuleInit();

    app = Fastify({ logger: false });
    await app.register(fastifyMultipart, MULTIPART_PLUGIN_OPTIONS);
    // The service's guard (415 unless JSON), opened for the routes that take an upload only.
    app.addHook('onRequest', (request, _reply, done) => {
      done(isMultipartUploadRoute(request) ? undefined : rejectBeforeBody(request));
    });
    app.setErrorHandler((error, _request, reply) => {
      const mapped = mapError(error);
      void reply.status(mapped.status).headers(mapped.headers).send(mapped.body);
    });
    for (const [path, maxFileBytes] of [
      ['/upload', LIMIT],
      ['/big-upload', BIG_LIMIT],
    ] as const) {
      app.post(path, { config: MULTIPART_UPLOAD_ROUTE }, async (request, reply) => {
        try {
          const upload = await readMultipartUpload(request, reply, store, {
            maxFileBytes,
            repeatableFields: ['tags'],
            beforeFile: (fields) => {
              if (fields.refuse !== undefined) throw new Error('refused before the file');
            },
          });
          try {
            const stored = await upload.file.commit();
            return { ...upload, file: undefined, stored };
          } finally {
            await upload.file.abort();
          }
        } finally {
          handlers.emit('settled');
        }
      });
    }
    app.put('/json', (request, reply) => {
      void reply.send({ received: request.body });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  afterEach(async () => {
    // Each test starts from an empty store.
    for (const entry of await readdir(root)) {
      if (entry !== 'tmp') await rm(join(root, entry), { recursive: true, force: true });
    }
  });

  /** Files in the store (outside tmp/) and in tmp/. */
  async function contents(): Promise<{ stored: string[]; temporary: string[] }> {
    const stored = (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && !entry.parentPath.startsWith(store.tempDir))
      .map((entry) => entry.name);
    return { stored, temporary: await readdir(store.tempDir) };
  }

  async function postMultipart(body: Buffer, path = '/upload') {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  function rawRequest(path: string, contentLength: number): Socket {
    const socket = connect(port, '127.0.0.1');
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
        `Content-Length: ${contentLength}\r\n\r\n`,
    );
    return socket;
  }

  it('stores the file under its sha256 and answers the fields sent before it (FormData)', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20_000)]);
    const form = new FormData();
    form.append('title', 'Quarterly report');
    form.append('description', 'Ünïcödé fields survive');
    form.append('file', new Blob([bytes], { type: 'text/plain' }), 'Cafe\u0301 report.pdf');

    const response = await fetch(`${base}/upload`, { method: 'POST', body: form });
    const body = (await response.json()) as Record<string, unknown>;

    expect(response.status).toBe(200);
    const sha = sha256Of(bytes);
    expect(body).toEqual({
      fields: { title: 'Quarterly report', description: 'Ünïcödé fields survive' },
      lists: {},
      fileName: 'Caf\u00e9 report.pdf', // NFC
      declaredType: 'text/plain',
      mimeType: 'application/pdf', // the bytes, not the declaration
      sha256: sha,
      size: bytes.length,
      stored: { sha256: sha, size: bytes.length },
    });
    expect(await readFile(store.pathOf(sha))).toEqual(bytes);
    expect(await contents()).toEqual({ stored: [sha], temporary: [] });
  });

  it('collects a repeatable field sent several times, in order, apart from the other fields', async () => {
    const form = new FormData();
    form.append('tags', 'b');
    form.append('title', 'Tagged');
    form.append('tags', 'a');
    form.append('tags', 'b');
    form.append('file', new Blob(['tagged']), 'tagged.txt');
    const response = await fetch(`${base}/upload`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ fields: { title: 'Tagged' }, lists: { tags: ['b', 'a', 'b'] } });
  });

  it('accepts a file of exactly the limit', async () => {
    const bytes = randomBytes(LIMIT);
    const response = await postMultipart(multipartBody([{ name: 'file', filename: 'limit.bin', data: bytes }]));
    expect(response).toMatchObject({ status: 200, body: { size: LIMIT, sha256: sha256Of(bytes) } });
  });

  it.each([
    ['report.txt', 'report.txt'],
    ['C:\\Users\\me\\report.txt', 'report.txt'],
    ['../../etc/passwd', 'passwd'],
    ['dir/sub\\mixed.txt', 'mixed.txt'],
    ['😀'.repeat(255), '😀'.repeat(255)], // 255 code points, 510 UTF-16 units
  ])('stores %j under the name %j', async (sent, stored) => {
    const response = await postMultipart(
      multipartBody([{ name: 'file', filename: sent, type: 'text/plain', data: Buffer.from('hello') }]),
    );
    expect(response).toMatchObject({ status: 200, body: { fileName: stored, mimeType: 'text/plain' } });
  });

  const file = (filename = 'a.txt', data = Buffer.from('content')): Part => ({ name: 'file', filename, data });
  it.each<[string, Part[], RegExp]>([
    ['an empty file', [file('empty.txt', Buffer.alloc(0))], /file is empty/],
    ['no file part', [{ name: 'title', value: 'x' }], /no file part named "file"/],
    ['a second file part', [file('one.txt'), file('two.txt')], /exactly one file.*second file part/],
    [
      'a text field after the file',
      [file(), { name: 'title', value: 'late' }],
      /must come before the file part; "title"/,
    ],
    [
      'a file under another name',
      [{ name: 'upload', filename: 'a.txt', data: Buffer.from('x') }],
      /part named "file", not "upload"/,
    ],
    ['a text part named file', [{ name: 'file', value: 'not a file' }], /part "file" must be a file/],
    [
      'a repeated field',
      [{ name: 'title', value: 'a' }, { name: 'title', value: 'b' }, file()],
      /"title" was sent more than once/,
    ],
    [
      'a field over 64 KiB',
      [{ name: 'title', value: 'x'.repeat(64 * 1024 + 1) }, file()],
      /"title" is longer than 65536 bytes/,
    ],
    [
      'too many fields',
      [...Array.from({ length: 33 }, (_, i) => ({ name: `f${i}`, value: 'x' })), file()],
      /at most 32 text fields/,
    ],
    ['an empty file name', [file('')], /file name is empty/],
    ['a blank file name', [file('   ')], /file name is empty/],
    ['a file name that is only a directory', [file('reports/')], /only a path/],
    // A backslash is escaped in a quoted-string: this header says C:\reports\ .
    ['a file name that is only a Windows directory', [file('C:\\reports\\\\')], /only a path/],
    ['a file name that is ..', [file('../..')], /only a path/],
    ['a file name over 255 characters', [file(`${'a'.repeat(252)}.txt`)], /at most 255 characters/],
    ['a file name with a control character', [file('bell\u0007.txt')], /control characters/],
    ['a file name with a bidi override', [file('invoice\u202Efdp.exe')], /bidirectional/],
    ['a prototype field name', [{ name: '__proto__', value: 'x' }, file()], /not allowed/],
  ])('refuses %s with 400 and keeps nothing', async (_case, parts, details) => {
    const response = await postMultipart(multipartBody(parts));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.details).toMatch(details);
    expect(await contents()).toEqual({ stored: [], temporary: [] });
  });

  it('refuses a body that ends before its closing boundary with 400', async () => {
    const response = await postMultipart(multipartBody([file()], { close: false }));
    expect(response).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(await contents()).toEqual({ stored: [], temporary: [] });
  });

  it('lets the route refuse on the fields before any file byte is stored', async () => {
    const response = await postMultipart(multipartBody([{ name: 'refuse', value: 'yes' }, file()]));
    expect(response.status).toBe(500); // the test route throws a plain Error: the reader passes it on
    expect(await contents()).toEqual({ stored: [], temporary: [] });
  });

  it('answers 415 to an upload route sent JSON', async () => {
    const response = await fetch(`${base}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('keeps answering 415 to multipart on JSON routes, with the plugin registered', async () => {
    const form = new FormData();
    form.append('title', 'x');
    const refused = await fetch(`${base}/json`, { method: 'PUT', body: form });
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ error: 'unsupported_media_type' });

    const accepted = await fetch(`${base}/json`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"x"}',
    });
    expect(await accepted.json()).toEqual({ received: { title: 'x' } });
  });

  it('answers 413 as soon as the limit is crossed, without the rest of the body, and keeps nothing', async () => {
    const head = Buffer.from(partHead(file('big.bin')));
    const declaredFileSize = LIMIT * 16;
    const socket = rawRequest('/upload', head.length + declaredFileSize + 100);
    const response = responseOf(socket);
    const settled = once(handlers, 'settled');

    // One byte over the limit, and then nothing: only an answer that does not wait for the end can come.
    socket.write(Buffer.concat([head, randomBytes(LIMIT + 1)]));
    const answer = await response;

    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      error: 'payload_too_large',
      details: `The file must be at most ${LIMIT} bytes.`,
    });
    await settled;
    expect(await contents()).toEqual({ stored: [], temporary: [] });
  });

  it('removes the temporary file of a client that disconnects mid-upload', async () => {
    const head = Buffer.from(partHead(file('half.bin')));
    const fileSize = 4 * 1024 * 1024;
    const socket = rawRequest('/big-upload', head.length + fileSize + 100);
    socket.on('error', () => undefined);
    const settled = once(handlers, 'settled');

    socket.write(Buffer.concat([head, randomBytes(fileSize / 2)]));
    // The upload is being written when its temporary file exists.
    await vi.waitFor(async () => expect(await readdir(store.tempDir)).toHaveLength(1), {
      timeout: 10_000,
      interval: 5,
    });
    socket.destroy();

    await settled;
    expect(await contents()).toEqual({ stored: [], temporary: [] });
  }, 30_000);

  it('streams a 20 MiB upload with heap growth far below the file size', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const retained = () => {
      gc();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };

    const fileSize = 20 * 1024 * 1024;
    const chunk = randomBytes(64 * 1024);
    const head = Buffer.from(partHead(file('twenty.bin')));
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const socket = rawRequest('/big-upload', head.length + fileSize + tail.length);
    const response = responseOf(socket);
    const hash = createHash('sha256');

    const baseline = retained();
    let peak = 0;
    socket.write(head);
    for (let sent = 0; sent < fileSize; sent += chunk.length) {
      hash.update(chunk);
      if (!socket.write(chunk)) await once(socket, 'drain');
      if ((sent + chunk.length) % (1024 * 1024) === 0) peak = Math.max(peak, retained() - baseline);
    }
    socket.write(tail); // not end(): Node's server takes a half-close for an aborted request
    const answer = await response;
    socket.destroy();

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ size: fileSize, sha256: hash.digest('hex') });
    expect(peak).toBeLessThan(fileSize / 8);
  }, 30_000);
});

describe('cleanFileName', () => {
  it.each([
    ['a.txt', 'a.txt'],
    ['/abs/path/a.txt', 'a.txt'],
    ['..\\..\\a.txt', 'a.txt'],
    ['e\u0301', '\u00e9'],
    [' spaced name .txt', ' spaced name .txt'],
    ['.hidden', '.hidden'],
    ['x'.repeat(255), 'x'.repeat(255)],
  ])('%j → %j', (raw, expected) => {
    expect(cleanFileName(raw)).toBe(expected);
  });

  it.each([
    [undefined, /empty/],
    ['', /empty/],
    ['\t', /control/],
    ['/', /only a path/],
    ['a/.', /only a path/],
    ['a\\..', /only a path/],
    ['x'.repeat(256), /at most 255/],
    ['nul\u0000.txt', /control/],
    ['c1\u0085.txt', /control/],
    ['rlm\u200f.txt', /bidirectional/],
    ['isolate\u2066.txt', /bidirectional/],
    ['alm\u061c.txt', /bidirectional/],
  ])('refuses %j', (raw, details) => {
    expect(() => cleanFileName(raw)).toThrow(details);
  });
});
