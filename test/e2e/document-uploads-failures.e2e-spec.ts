import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentVersion } from '../../src/documents/entities/document-version.entity.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { FileStore } from '../../src/storage/file-store.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { multipartBody, sendMultipart, storeContents, type Part } from '../support/uploads.js';

/** The upload limit of this suite's app: small, so that 413 needs no large bodies. */
const MAX_BYTES = 4096;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Polls `check` until it holds (each poll yields to the server); fails after many polls. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let poll = 0; poll < 400; poll++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`never happened: ${what}`);
}

describe.each(storageSetupsUnderTest())('upload failures on $kind, $driver driver', ({ kind, driver }) => {
  let t: TestApp;
  let alice: string;
  let projectId: string;
  let typeId: string;
  let seededFiles: string[];

  const basics = (): Part[] => [
    { name: 'projectId', value: projectId },
    { name: 'documentTypeId', value: typeId },
  ];
  const file = (fileName: string | null, bytes: Buffer | string = 'content', type?: string): Part => ({
    name: 'file',
    fileName,
    bytes,
    type,
  });
  const createDocument = (parts: Part[], headers: Record<string, string> = {}) =>
    sendMultipart(`${t.url}/api/documents`, alice, parts, headers);
  const counts = async () => ({
    documents: await t.dataSource.getRepository(Document).count(),
    versions: await t.dataSource.getRepository(DocumentVersion).count(),
  });
  /** Nothing was written: no row, no stored file beyond the seed's, nothing in tmp/. */
  const expectNothingKept = async (before: { documents: number; versions: number }) => {
    expect(await counts()).toEqual(before);
    expect(await storeContents(t)).toEqual({ files: seededFiles, temporary: [] });
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { UPLOAD_MAX_BYTES: String(MAX_BYTES), STORAGE_DRIVER: driver });
    alice = await t.login('alice');
    projectId = t.seed.projects[0].id;
    typeId = t.seed.documentTypes[0].id;
    seededFiles = (await storeContents(t)).files;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('keeps the seeded files in the store, and nothing in tmp/', async () => {
    expect(seededFiles.length).toBe(t.seed.documents.length);
    expect(await storeContents(t)).toEqual({ files: seededFiles, temporary: [] });
  });

  const badRequests: [string, () => Part[], RegExp][] = [
    ['an empty file', () => [...basics(), file('empty.txt', '')], /file is empty/],
    ['no file part', () => basics(), /no file part named "file"/],
    [
      'a second file part',
      () => [...basics(), file('one.txt', 'one'), file('two.txt', 'two')],
      /exactly one file|second file/,
    ],
    [
      'a text field after the file part',
      () => [...basics(), file('one.txt'), { name: 'title', value: 'late' }],
      /must come before the file part/,
    ],
    ['a file part under another name', () => [...basics(), { ...file('x.txt'), name: 'upload' }], /part named "file"/],
    ['a file part without a file name', () => [...basics(), file(null)], /must be a file|file name/],
    ['an empty file name', () => [...basics(), file('')], /file name is empty/],
    ['a file name over 255 characters', () => [...basics(), file(`${'n'.repeat(252)}.txt`)], /at most 255/],
    ['a file name with a control character', () => [...basics(), file('a\u0007b.txt')], /control characters/],
    ['a file name with a bidi override', () => [...basics(), file('invoice\u202Efdp.exe')], /bidirectional/],
    ['a file name that is only a path', () => [...basics(), file('reports/2026/')], /only a path/],
    ['a file name that is only dots', () => [...basics(), file('../..')], /only a path/],
    ['a missing projectId', () => [{ name: 'documentTypeId', value: typeId }, file('x.txt')], /projectId/],
    ['a malformed projectId', () => [{ name: 'projectId', value: 'nope' }, basics()[1], file('x.txt')], /projectId/],
    [
      'an unknown documentTypeId',
      () => [basics()[0], { name: 'documentTypeId', value: '00000000-0000-4000-8000-000000000000' }, file('x.txt')],
      /documentTypeId/,
    ],
    ['an unknown field', () => [...basics(), { name: 'status', value: 'published' }, file('x.txt')], /status/],
    [
      'a repeated field',
      () => [...basics(), { name: 'title', value: 'a' }, { name: 'title', value: 'b' }, file('x.txt')],
      /more than once/,
    ],
    ['metadata that is not JSON', () => [...basics(), { name: 'metadata', value: '{oops' }, file('x.txt')], /metadata/],
    [
      'metadata that is no object',
      () => [...basics(), { name: 'metadata', value: '[1,2]' }, file('x.txt')],
      /metadata/,
    ],
    [
      'metadata nested 9 deep',
      () => [...basics(), { name: 'metadata', value: '{"a":'.repeat(8) + '{}' + '}'.repeat(8) }, file('x.txt')],
      /metadata/,
    ],
    [
      'metadata with a __proto__ key',
      () => [...basics(), { name: 'metadata', value: '{"__proto__":{"x":1}}' }, file('x.txt')],
      /metadata|__proto__/,
    ],
    ['a blank title', () => [...basics(), { name: 'title', value: '   ' }, file('x.txt')], /title/],
    [
      'a title over 255 characters',
      () => [...basics(), { name: 'title', value: 't'.repeat(256) }, file('x.txt')],
      /title/,
    ],
    ['a title with a bidi override', () => [...basics(), { name: 'title', value: 'a\u202Eb' }, file('x.txt')], /title/],
    ['a tag over 64 characters', () => [...basics(), { name: 'tags', value: 'x'.repeat(65) }, file('x.txt')], /tag/],
    ['a blank tag', () => [...basics(), { name: 'tags', value: '  ' }, file('x.txt')], /tag/],
    [
      '101 tags',
      () => [...basics(), ...Array.from({ length: 101 }, (_, i) => ({ name: 'tags', value: `t${i}` })), file('x.txt')],
      /tags/,
    ],
  ];

  it.each(badRequests)('answers 400 naming the problem to %s, and keeps nothing', async (_case, parts, details) => {
    const before = await counts();
    const response = await createDocument(parts());
    expect({ status: response.status, error: response.body.error }).toEqual({
      status: 400,
      error: 'validation_failed',
    });
    expect(response.body.details).toMatch(details);
    await expectNothingKept(before);
  });

  it('answers 413 payload_too_large to a file one byte over UPLOAD_MAX_BYTES, and keeps nothing', async () => {
    const before = await counts();
    const response = await createDocument([...basics(), file('big.bin', Buffer.alloc(MAX_BYTES + 1, 7))]);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: 'payload_too_large', details: expect.any(String) });
    await expectNothingKept(before);
    const exact = await createDocument([...basics(), file('exact.bin', Buffer.alloc(MAX_BYTES, 8))]);
    expect(exact.status).toBe(201);
    seededFiles = (await storeContents(t)).files;
  });

  it('answers 413 to an oversized new version, and keeps nothing', async () => {
    const id = t.seed.documents[0].id;
    const before = await counts();
    const response = await sendMultipart(`${t.url}/api/documents/${id}/versions`, alice, [
      file('big.bin', Buffer.alloc(MAX_BYTES * 3, 1)),
    ]);
    expect(response.status).toBe(413);
    await expectNothingKept(before);
  });

  it('answers 415 to anything but multipart on the upload routes, and to multipart elsewhere', async () => {
    const id = t.seed.documents[0].id;
    const before = await counts();
    const send = (path: string, method: string, contentType: string | undefined, body: string) =>
      fetch(`${t.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${alice}`, ...(contentType ? { 'content-type': contentType } : {}) },
        body: new TextEncoder().encode(body),
      });
    const json = JSON.stringify({ projectId, documentTypeId: typeId });
    const cases: [string, string, string | undefined][] = [
      ['/api/documents', 'POST', 'application/json'],
      ['/api/documents', 'POST', 'text/plain'],
      ['/api/documents', 'POST', undefined],
      [`/api/documents/${id}/versions`, 'POST', 'application/json'],
      [`/api/documents/${id}/versions`, 'POST', 'application/x-www-form-urlencoded'],
      [`/api/documents/${id}`, 'PUT', 'multipart/form-data; boundary=x'],
    ];
    for (const [path, method, contentType] of cases) {
      const response = await send(path, method, contentType, json);
      expect({ path, method, contentType, status: response.status }).toEqual({
        path,
        method,
        contentType,
        status: 415,
      });
      expect(await response.json()).toEqual({ error: 'unsupported_media_type', details: expect.any(String) });
    }
    // No body at all is no upload either.
    const empty = await fetch(`${t.url}/api/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(empty.status).toBe(415);
    await expectNothingKept(before);
  });

  it('answers 403 and 404 before storing anything (viewer, unknown project)', async () => {
    const before = await counts();
    const unknown = await createDocument([
      { name: 'projectId', value: '00000000-0000-4000-8000-000000000000' },
      basics()[1],
      file('x.txt'),
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('project_not_found');
    await t.dataSource.query("UPDATE project_members SET role = 'viewer' WHERE userId = ? AND projectId = ?", [
      t.user('alice').id,
      projectId,
    ]);
    try {
      const viewer = await createDocument([...basics(), file('x.txt')]);
      expect(viewer.status).toBe(403);
    } finally {
      await t.dataSource.query("UPDATE project_members SET role = 'contributor' WHERE userId = ? AND projectId = ?", [
        t.user('alice').id,
        projectId,
      ]);
    }
    await expectNothingKept(before);
  });

  it('keeps nothing when the client disconnects in the middle of the file', async () => {
    const before = await counts();
    const begin = vi.spyOn(t.app.get(FileStore), 'begin');
    const { body, contentType } = multipartBody([...basics(), file('cut.bin', Buffer.alloc(MAX_BYTES, 3))]);
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    socket.write(
      `POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alice}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // Everything but the last 2 KiB: the file part has begun, so a temporary file exists.
    socket.write(body.subarray(0, body.length - 2048));
    await eventually(() => Promise.resolve(begin.mock.calls.length === 1), 'the upload reached the store');
    begin.mockRestore();
    socket.destroy();
    await eventually(async () => (await storeContents(t)).temporary.length === 0, 'tmp/ emptied');
    await expectNothingKept(before);
  });

  describe('a database that fails after the file is stored', () => {
    const failingTrigger = (table: string) =>
      kind === 'sqlite'
        ? `CREATE TRIGGER test_refuse_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`
        : `CREATE TRIGGER test_refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW ` +
          "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'";

    async function withFailingInserts(table: string, work: () => Promise<void>): Promise<void> {
      await t.dataSource.query(failingTrigger(table));
      try {
        await work();
      } finally {
        await t.dataSource.query(`DROP TRIGGER test_refuse_${table}`);
      }
    }

    it('leaves no row and no stored file for a new document; identical bytes stored before stay', async () => {
      const before = await counts();
      const seededBytes = Buffer.from(
        await (
          await fetch(`${t.url}/api/documents/${t.seed.documents[0].id}/content`, {
            headers: { authorization: `Bearer ${alice}` },
          })
        ).arrayBuffer(),
      );
      await withFailingInserts('documents', async () => {
        const fresh = await createDocument([...basics(), file('fresh.txt', 'bytes nobody stored before')]);
        expect(fresh.status).toBe(500);
        expect(fresh.body).toEqual({ error: 'internal_error', details: expect.any(String) });
        expect(JSON.stringify(fresh.body)).not.toMatch(/refused by the test|INSERT|trigger/i);
        const duplicate = await createDocument([...basics(), file('copy.pdf', seededBytes)]);
        expect(duplicate.status).toBe(500);
      });
      await expectNothingKept(before);
      expect(seededFiles).toContain(sha256(seededBytes));
    });

    it('leaves the document as it was when a new version cannot be recorded', async () => {
      const id = t.seed.documents[1].id;
      const document = await t.dataSource.getRepository(Document).findOneByOrFail({ id });
      const before = await counts();
      await withFailingInserts('document_versions', async () => {
        const response = await sendMultipart(`${t.url}/api/documents/${id}/versions`, alice, [
          file('next.txt', 'a version that never lands'),
        ]);
        expect(response.status).toBe(500);
      });
      await expectNothingKept(before);
      expect(await t.dataSource.getRepository(Document).findOneByOrFail({ id })).toEqual(document);
    });
  });

  it('stores identical bytes once, whichever documents and versions hold them', async () => {
    const bytes = Buffer.from('the same bytes, uploaded three times');
    const first = await createDocument([...basics(), file('one.txt', bytes)]);
    const second = await createDocument([...basics(), file('two.txt', bytes)]);
    const version = await sendMultipart(`${t.url}/api/documents/${t.seed.documents[2].id}/versions`, alice, [
      file('three.txt', bytes),
    ]);
    expect([first.status, second.status, version.status]).toEqual([201, 201, 201]);
    for (const response of [first, second, version]) expect(response.body.document.sha256).toBe(sha256(bytes));
    const { files, temporary } = await storeContents(t);
    expect(files.filter((name) => name === sha256(bytes))).toHaveLength(1);
    expect(files).toEqual([...seededFiles, sha256(bytes)].sort());
    expect(temporary).toEqual([]);
    for (const response of [first, second]) {
      const content = await fetch(`${t.url}/api/documents/${response.body.document.id}/content`, {
        headers: { authorization: `Bearer ${alice}` },
      });
      expect(await content.text()).toBe(bytes.toString());
    }
  });
});

describe.each(storageSetupsUnderTest())('upload deadlines on $kind, $driver driver', ({ kind, driver }) => {
  /** Short, so that a stalled client is cut off quickly; a trickling upload outlasts it many times. */
  const TIMEOUT_MS = 1000;
  let t: TestApp;
  let alice: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), STORAGE_DRIVER: driver });
    alice = await t.login('alice');
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Opens a raw connection and sends the request head of a multipart upload of `body`. */
  async function startUpload(body: Buffer, contentType: string) {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alice}\r\nConnection: close\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    return { socket, response: () => closed.then(() => received) };
  }

  it('lets an upload that keeps sending run past REQUEST_TIMEOUT_MS', async () => {
    const { body, contentType } = multipartBody([
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'slow.bin', bytes: Buffer.alloc(3000, 5) },
    ]);
    const { socket, response } = await startUpload(body, contentType);
    const pieces = 12;
    const size = Math.ceil(body.length / pieces);
    const started = Date.now();
    for (let piece = 0; piece < pieces; piece++) {
      socket.write(body.subarray(piece * size, (piece + 1) * size));
      await sleep(TIMEOUT_MS / 4);
    }
    const answer = await response();
    // The whole upload took several deadlines, and still succeeded.
    expect(Date.now() - started).toBeGreaterThan(2 * TIMEOUT_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('answers 408 to an upload that stalls, and keeps nothing', async () => {
    const before = await t.dataSource.getRepository(Document).count();
    const { body, contentType } = multipartBody([
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'stalled.bin', bytes: Buffer.alloc(3000, 6) },
    ]);
    const { socket, response } = await startUpload(body, contentType);
    socket.write(body.subarray(0, body.length - 1000));
    const answer = await response();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error":"request_timeout"');
    await eventually(async () => (await storeContents(t)).temporary.length === 0, 'tmp/ emptied');
    expect(await t.dataSource.getRepository(Document).count()).toBe(before);
  });
});
