import { randomUUID } from 'node:crypto';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const DOCUMENT_FIELDS = [
  'createdAt',
  'currentVersion',
  'description',
  'documentTypeId',
  'fileName',
  'fileSize',
  'id',
  'metadata',
  'mimeType',
  'projectId',
  'sha256',
  'status',
  'tags',
  'title',
  'updatedAt',
  'uploadedBy',
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** {"a":{"a":...{}}}: an object nested `levels` deep (a lone {} is one level). */
function nestedObject(levels: number): Json {
  let value: Json = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

/** Every error, whatever the layer, is exactly {error, details} with two strings. */
function expectError(response: Response, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: code } });
  expect(Object.keys(response.body).sort()).toEqual(['details', 'error']);
  expect(typeof response.body.details).toBe('string');
  expect(response.body.details.length).toBeGreaterThan(0);
}

describe.each(databasesUnderTest())('PUT /api/documents/{documentId} on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<'admin' | 'alice' | 'bob' | 'erin', string>;
  /** Documents by owner, in seed order. */
  let docs: { alice: string[]; bob: string[]; admin: string[] };

  const api = () => request(t.url);
  const put = (id: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) => {
    const req = api().put(`/api/documents/${id}`).set('Content-Type', 'application/json');
    if (token) req.set('Authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const history = (id: string, token: string) =>
    api().get(`/api/documents/${id}/history`).set('Authorization', `Bearer ${token}`);

  const row = (id: string) => t.dataSource.getRepository(Document).findOneByOrFail({ id });
  const historyCount = (id: string) => t.dataSource.getRepository(DocumentHistory).countBy({ documentId: id });
  const rowVersion = async (id: string): Promise<number> => {
    const rows: { rowVersion: number | string }[] = await t.dataSource.query(
      'SELECT rowVersion FROM documents WHERE id = ?',
      [id],
    );
    return Number(rows[0].rowVersion);
  };
  /** Everything stored about a document, to prove a rejected request changed nothing. */
  const snapshot = async (id: string) => ({ document: await row(id), history: await historyCount(id) });

  /** The JSON a document row must produce, computed independently of the service's mapper. */
  const asJson = (document: Document) => ({
    id: document.id,
    projectId: document.projectId,
    documentTypeId: document.documentTypeId,
    title: document.title,
    description: document.description,
    fileName: document.fileName,
    fileSize: document.fileSize,
    mimeType: document.mimeType,
    currentVersion: document.currentVersion,
    status: document.status,
    tags: document.tags,
    metadata: document.metadata,
    uploadedBy: document.uploadedBy,
    createdAt: document.createdAt.toISOString(),
    updatedAt: document.updatedAt.toISOString(),
    sha256: document.sha256,
  });

  beforeAll(async () => {
    t = await createTestApp(kind);
    tokens = {
      admin: await t.login('admin'),
      alice: await t.login('alice'),
      bob: await t.login('bob'),
      erin: await t.login('erin'),
    };
    const owned = (username: string) =>
      t.seed.documents.filter((document) => document.uploadedBy === t.user(username).id).map((document) => document.id);
    docs = { alice: owned('alice'), bob: owned('bob'), admin: owned('admin') };
  });

  afterAll(async () => {
    await t?.close();
  });

  it('starts from the seed: alice and bob own three documents each, admin two', () => {
    expect([docs.alice.length, docs.bob.length, docs.admin.length]).toEqual([3, 3, 2]);
  });

  describe('success', () => {
    it('answers 200 {document} with every Document field, ISO timestamps and an ETag', async () => {
      const id = docs.alice[0];
      const before = await row(id);
      const response = await put(id, tokens.alice, { title: 'Quarterly supplier contract' });

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(response.body)).toEqual(['document']);
      const document = response.body.document;
      expect(Object.keys(document).sort()).toEqual(DOCUMENT_FIELDS);
      expect(document.id).toBe(id);
      for (const field of ['id', 'projectId', 'documentTypeId', 'uploadedBy']) expect(document[field]).toMatch(UUID);
      expect(document.createdAt).toMatch(ISO_UTC);
      expect(document.updatedAt).toMatch(ISO_UTC);
      expect(Number.isInteger(document.fileSize)).toBe(true);
      expect(Number.isInteger(document.currentVersion)).toBe(true);
      expect(document.status).toBe('draft');
      expect(Array.isArray(document.tags)).toBe(true);
      expect(typeof document.metadata).toBe('object');
      expect(document.title).toBe('Quarterly supplier contract');
      expect(response.headers.etag).toEqual(expect.any(String));
      expect(response.headers.etag.length).toBeGreaterThan(0);

      // The answer is what is stored, and only the title changed.
      const after = await row(id);
      expect(document).toEqual(asJson(after));
      expect(asJson(after)).toEqual({
        ...asJson(before),
        title: 'Quarterly supplier contract',
        updatedAt: after.updatedAt.toISOString(),
      });
      expect(after.rowVersion).toBe(before.rowVersion + 1);
    });

    it('accepts {} and changes nothing: same document, same updatedAt, same ETag, no history entry', async () => {
      const id = docs.alice[0];
      const first = await put(id, tokens.alice, {});
      expect(first.status).toBe(200);
      const before = await snapshot(id);
      expect(first.body.document).toEqual(asJson(before.document));

      const second = await put(id, tokens.alice, {});
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(await snapshot(id)).toEqual(before);
    });

    it('sending the current values again changes nothing and does not move updatedAt', async () => {
      const id = docs.alice[0];
      const before = await snapshot(id);
      const current = asJson(before.document);
      const response = await put(id, tokens.alice, {
        title: current.title,
        description: current.description,
        tags: current.tags,
        metadata: current.metadata,
      });
      expect(response.status).toBe(200);
      expect(response.body.document).toEqual(current);
      expect(await snapshot(id)).toEqual(before);
    });

    it('keeps omitted fields: each field can be changed alone', async () => {
      const id = docs.alice[0];
      const start = asJson(await row(id));
      const cases: [string, unknown][] = [
        ['title', 'Only the title'],
        ['description', 'Only the description'],
        ['tags', ['only-tags']],
        ['metadata', { only: 'metadata' }],
      ];
      let expected = start;
      for (const [field, value] of cases) {
        const response = await put(id, tokens.alice, { [field]: value });
        expect(response.status).toBe(200);
        expected = { ...expected, [field]: value, updatedAt: response.body.document.updatedAt };
        expect(response.body.document).toEqual(expected);
        expect(asJson(await row(id))).toEqual(expected);
      }
    });

    it('replaces tags whole: trimmed, duplicates dropped, first-appearance order kept; [] clears them', async () => {
      const id = docs.alice[0];
      await put(id, tokens.alice, { tags: ['old-1', 'old-2'] }).expect(200);

      const response = await put(id, tokens.alice, { tags: ['  zeta ', 'alpha', 'zeta', ' alpha', 'mid\t', 'zeta  '] });
      expect(response.status).toBe(200);
      expect(response.body.document.tags).toEqual(['zeta', 'alpha', 'mid']);
      expect((await row(id)).tags).toEqual(['zeta', 'alpha', 'mid']);

      const cleared = await put(id, tokens.alice, { tags: [] });
      expect(cleared.status).toBe(200);
      expect(cleared.body.document.tags).toEqual([]);
      expect((await row(id)).tags).toEqual([]);
    });

    it('replaces metadata whole instead of merging it, and keeps JSON value types', async () => {
      const id = docs.alice[0];
      const rich = { a: 1, b: { c: [1, 'two', true, null, { d: 2.5 }] }, e: false, f: null, g: '' };
      const first = await put(id, tokens.alice, { metadata: rich });
      expect(first.status).toBe(200);
      expect(first.body.document.metadata).toEqual(rich);
      expect((await row(id)).metadata).toEqual(rich);

      const second = await put(id, tokens.alice, { metadata: { b: { x: 1 } } });
      expect(second.status).toBe(200);
      expect(second.body.document.metadata).toEqual({ b: { x: 1 } });
      expect((await row(id)).metadata).toEqual({ b: { x: 1 } });

      const cleared = await put(id, tokens.alice, { metadata: {} });
      expect(cleared.status).toBe(200);
      expect(cleared.body.document.metadata).toEqual({});
      expect((await row(id)).metadata).toEqual({});
    });

    it('moves updatedAt strictly forward on every change and never changes the other fields', async () => {
      const id = docs.alice[0];
      const before = asJson(await row(id));
      let previous = before.updatedAt;
      for (let round = 0; round < 5; round++) {
        // Back to back, several updates can land in the same millisecond: updatedAt must still advance.
        const response = await put(id, tokens.alice, {
          title: `Round ${round}`,
          description: `Description ${round}`,
          tags: [`round-${round}`],
          metadata: { round },
        });
        expect(response.status).toBe(200);
        const document = response.body.document;
        expect(Date.parse(document.updatedAt)).toBeGreaterThan(Date.parse(previous));
        previous = document.updatedAt;
        for (const field of [
          'id',
          'projectId',
          'documentTypeId',
          'fileName',
          'fileSize',
          'mimeType',
          'currentVersion',
          'status',
          'uploadedBy',
          'createdAt',
        ] as const) {
          expect(document[field]).toEqual(before[field]);
        }
      }
      expect((await row(id)).updatedAt.toISOString()).toBe(previous);

      // Even when the stored updatedAt is ahead of this server's clock (another instance's skew), a change moves it forward.
      const ahead = new Date(Date.now() + 60 * 60_000);
      const aheadSql = ahead.toISOString().replace('T', ' ').replace('Z', '');
      await t.dataSource.query('UPDATE documents SET updatedAt = ? WHERE id = ?', [aheadSql, id]);
      expect((await row(id)).updatedAt.toISOString()).toBe(ahead.toISOString());
      const skewed = await put(id, tokens.alice, { title: 'After clock skew' });
      expect(skewed.status).toBe(200);
      expect(Date.parse(skewed.body.document.updatedAt)).toBeGreaterThan(ahead.getTime());
      expect((await row(id)).updatedAt.getTime()).toBeGreaterThan(ahead.getTime());
    });

    it('accepts tabs, newlines and an empty string in description', async () => {
      const id = docs.alice[0];
      const description = 'Line one\nLine two\n\n\tindented\tcolumns\n';
      const response = await put(id, tokens.alice, { description });
      expect(response.status).toBe(200);
      expect(response.body.document.description).toBe(description);
      expect((await row(id)).description).toBe(description);

      const empty = await put(id, tokens.alice, { description: '' });
      expect(empty.status).toBe(200);
      expect(empty.body.document.description).toBe('');
      expect((await row(id)).description).toBe('');
    });

    it('round-trips unicode and emoji in title, tags and metadata unchanged', async () => {
      const id = docs.alice[0];
      const body = {
        title: 'Überprüfung – 契約書 📄 👩🏽‍💻 ﷽ café',
        description: 'Ελληνικά, русский, עברית, 🇨🇭',
        tags: ['日本語', 'emoji🎉', 'naïve', '👨‍👩‍👧‍👦'],
        metadata: { ключ: 'значение 🚀', '𝄞': ['ü', '字', { '😀': '∑' }], ß: 'ẞ' },
      };
      const response = await put(id, tokens.alice, body);
      expect(response.status).toBe(200);
      expect(response.body.document).toMatchObject(body);
      const stored = await row(id);
      expect({
        title: stored.title,
        description: stored.description,
        tags: stored.tags,
        metadata: stored.metadata,
      }).toEqual(body);
      // Unchanged when read back through the API.
      expect((await put(id, tokens.alice, {})).body.document).toMatchObject(body);
    });

    it('accepts values exactly at the bounds', async () => {
      const id = docs.alice[0];
      const atBounds = {
        title: 't'.repeat(255),
        description: 'd'.repeat(10_000),
        tags: [...Array.from({ length: 99 }, (_, index) => `tag-${index}`), 'x'.repeat(64)],
        metadata: nestedObject(8) as Record<string, unknown>,
      };
      const response = await put(id, tokens.alice, atBounds);
      expect(response.status).toBe(200);
      expect(response.body.document).toMatchObject(atBounds);
      expect((await row(id)).tags).toHaveLength(100);

      // metadata of exactly 16 KiB as JSON: {"k":"xxx..."} is 8 bytes of framing.
      const sixteenKiB = { k: 'x'.repeat(16 * 1024 - 8) };
      expect(Buffer.byteLength(JSON.stringify(sixteenKiB))).toBe(16 * 1024);
      const big = await put(id, tokens.alice, { metadata: sixteenKiB });
      expect(big.status).toBe(200);
      expect((await row(id)).metadata).toEqual(sixteenKiB);
    });

    it('accepts Content-Type application/json with a charset parameter', async () => {
      const id = docs.alice[0];
      const response = await api()
        .put(`/api/documents/${id}`)
        .set('Authorization', `Bearer ${tokens.alice}`)
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ title: 'With charset' }));
      expect(response.status).toBe(200);
      expect(response.body.document.title).toBe('With charset');
    });

    it('accepts a body just under 1 MiB', async () => {
      const id = docs.alice[0];
      const json = JSON.stringify({ title: 'Padded body' });
      const body = json + ' '.repeat(1024 * 1024 - json.length - 16);
      const response = await put(id, tokens.alice, body);
      expect(response.status).toBe(200);
      expect(response.body.document.title).toBe('Padded body');
    });
  });

  describe('permissions and authentication', () => {
    it('lets a user with the admin role update a document someone else uploaded', async () => {
      const id = docs.bob[0];
      const response = await put(id, tokens.admin, { title: 'Changed by admin' });
      expect(response.status).toBe(200);
      expect(response.body.document.title).toBe('Changed by admin');
      expect(response.body.document.uploadedBy).toBe(t.user('bob').id);
      expect((await row(id)).title).toBe('Changed by admin');
    });

    it('lets a user whose editor role grants documents:update update any document', async () => {
      for (const id of [docs.bob[0], docs.alice[1], docs.admin[0]]) {
        const before = await row(id);
        const response = await put(id, tokens.erin, { tags: ['edited-by-erin'] });
        expect(response.status).toBe(200);
        expect(response.body.document.tags).toEqual(['edited-by-erin']);
        expect(response.body.document.uploadedBy).toBe(before.uploadedBy);
        expect((await row(id)).tags).toEqual(['edited-by-erin']);
      }
    });

    it('lets the uploader update their own document', async () => {
      const response = await put(docs.bob[0], tokens.bob, { title: 'Back to bob' });
      expect(response.status).toBe(200);
      expect(response.body.document.title).toBe('Back to bob');
    });

    it("answers 403 forbidden to a plain user on someone else's document and changes nothing", async () => {
      const cases: [string, string][] = [
        ['bob', docs.alice[0]],
        ['alice', docs.bob[0]],
        ['alice', docs.admin[0]],
        ['bob', docs.admin[1]],
      ];
      for (const [username, id] of cases) {
        const before = await snapshot(id);
        for (const body of [{ title: 'Hijacked' }, {}, { metadata: { owned: true }, tags: ['x'] }]) {
          const response = await put(id, tokens[username as 'alice' | 'bob'], body);
          expectError(response, 403, 'forbidden');
        }
        expect(await snapshot(id)).toEqual(before);
      }
    });

    it('answers 403 to a stale-but-valid If-Match from a user without permission too', async () => {
      const id = docs.alice[0];
      const etag = (await put(id, tokens.alice, {})).headers.etag;
      const before = await snapshot(id);
      expectError(await put(id, tokens.bob, { title: 'Hijacked' }, { 'If-Match': etag }), 403, 'forbidden');
      expect(await snapshot(id)).toEqual(before);
    });

    it('answers 401 unauthorized without a token or with an invalid one, and changes nothing', async () => {
      const id = docs.alice[0];
      const before = await snapshot(id);
      expectError(await put(id, undefined, { title: 'No token' }), 401, 'unauthorized');
      const [header, payload] = tokens.alice.split('.');
      for (const authorization of [
        'Bearer not-a-jwt',
        'Bearer ',
        `Bearer ${header}.${payload}.c2lnbmF0dXJl`,
        `Basic ${Buffer.from('alice:x').toString('base64')}`,
        tokens.alice, // no scheme
      ]) {
        const response = await api()
          .put(`/api/documents/${id}`)
          .set('Content-Type', 'application/json')
          .set('Authorization', authorization)
          .send(JSON.stringify({ title: 'Bad token' }));
        expectError(response, 401, 'unauthorized');
      }
      expect(await snapshot(id)).toEqual(before);
    });

    it("answers 401 to a deactivated owner's token and changes nothing", async () => {
      const id = docs.bob[2];
      const bob = t.user('bob').id;
      expect((await put(id, tokens.bob, {})).status).toBe(200);
      const before = await snapshot(id);
      await t.dataSource.query('UPDATE users SET isActive = ? WHERE id = ?', [0, bob]);
      try {
        expectError(await put(id, tokens.bob, { title: 'After deactivation' }), 401, 'unauthorized');
        expectError(await put(id, tokens.bob, {}), 401, 'unauthorized');
        expectError(await history(id, tokens.bob), 401, 'unauthorized');
        expect(await snapshot(id)).toEqual(before);
      } finally {
        await t.dataSource.query('UPDATE users SET isActive = ? WHERE id = ?', [1, bob]);
      }
      expect((await put(id, tokens.bob, {})).status).toBe(200);
    });

    it('answers 401 to a revoked token before anything else (the read that finds the document checks it), and changes nothing', async () => {
      const id = docs.alice[2];
      const revoked = await t.login('alice');
      const logout = await api().post('/api/auth/logout').set('authorization', `Bearer ${revoked}`);
      expect(logout.status).toBe(204);
      tokens.alice = await t.login('alice');
      const before = await snapshot(id);
      const read = (documentId: string) =>
        api().get(`/api/documents/${documentId}`).set('Authorization', `Bearer ${revoked}`);
      for (const response of [
        await put(id, revoked, { title: 'After logout' }),
        await put(id, revoked, {}),
        await put(randomUUID(), revoked, { title: 'No such document' }),
        await read(id),
        await read(randomUUID()),
      ]) {
        expectError(response, 401, 'unauthorized');
        expect(response.body.details).toMatch(/revoked/);
      }
      expect(await snapshot(id)).toEqual(before);
      expect((await put(id, tokens.alice, { title: 'After logging in again' })).status).toBe(200);
      expect((await api().get(`/api/documents/${id}`).set('Authorization', `Bearer ${tokens.alice}`)).status).toBe(200);
    });
  });

  describe('path parameter', () => {
    it('answers 404 document_not_found for an unknown UUID, for any user', async () => {
      for (const token of [tokens.alice, tokens.admin]) {
        const unknown = randomUUID();
        const response = await put(unknown, token, { title: 'Nobody' });
        expectError(response, 404, 'document_not_found');
        expect(await t.dataSource.getRepository(Document).countBy({ id: unknown })).toBe(0);
      }
    });

    it('answers 400 validation_failed naming documentId when it is not a UUID', async () => {
      for (const bad of ['abc', '123', `${docs.alice[0]}0`, docs.alice[0].replaceAll('-', ''), "1' OR '1'='1", '%20']) {
        const response = await put(encodeURIComponent(bad), tokens.alice, { title: 'x' });
        expectError(response, 400, 'validation_failed');
        expect(response.body.details).toContain('documentId');
      }
    });
  });

  describe('invalid bodies: 400 validation_failed and nothing changed', () => {
    const long = (length: number) => 'a'.repeat(length);
    const cases: [string, unknown, string | undefined][] = [
      // unknown or protected fields are rejected, never silently dropped
      ['id', { id: '00000000-0000-4000-8000-000000000000' }, 'id'],
      ['uploadedBy', { uploadedBy: '00000000-0000-4000-8000-000000000000' }, 'uploadedBy'],
      ['status', { status: 'approved' }, 'status'],
      ['currentVersion', { currentVersion: 7 }, 'currentVersion'],
      ['fileName', { fileName: 'evil.exe' }, 'fileName'],
      ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }, 'createdAt'],
      ['updatedAt', { updatedAt: '2000-01-01T00:00:00.000Z' }, 'updatedAt'],
      ['rowVersion', { rowVersion: 99 }, 'rowVersion'],
      ['unknown field', { foo: 1 }, 'foo'],
      ['unknown field beside a valid one', { title: 'Valid title', foo: 'bar' }, 'foo'],
      // title
      ['title number', { title: 123 }, 'title'],
      ['title empty', { title: '' }, 'title'],
      ['title blank', { title: '   ' }, 'title'],
      ['title 256 characters', { title: long(256) }, 'title'],
      ['title null', { title: null }, 'title'],
      ['title array', { title: ['a'] }, 'title'],
      ['title object', { title: { a: 1 } }, 'title'],
      ['title boolean', { title: true }, 'title'],
      // description
      ['description 10,001 characters', { description: long(10_001) }, 'description'],
      ['description number', { description: 5 }, 'description'],
      ['description null', { description: null }, 'description'],
      // tags
      ['tags string', { tags: 'x' }, 'tags'],
      ['tags [1]', { tags: [1] }, 'tag'],
      ['tags with a null entry', { tags: ['ok', null] }, 'tag'],
      ['tags nested array', { tags: [['a']] }, 'tag'],
      ['tags object', { tags: { 0: 'a' } }, 'tags'],
      ['tags null', { tags: null }, 'tags'],
      ['101 tags', { tags: Array.from({ length: 101 }, (_, index) => `t${index}`) }, 'tags'],
      ['a tag of 65 characters', { tags: ['ok', long(65)] }, 'tag'],
      ['a tag that is only spaces', { tags: ['ok', '   '] }, 'tag'],
      ['an empty tag', { tags: [''] }, 'tag'],
      ['valid title with invalid tags', { title: 'Would be valid', tags: [1] }, 'tag'],
      // metadata
      ['metadata []', { metadata: [] }, 'metadata'],
      ['metadata "x"', { metadata: 'x' }, 'metadata'],
      ['metadata null', { metadata: null }, 'metadata'],
      ['metadata number', { metadata: 42 }, 'metadata'],
      ['metadata over 16 KiB', { metadata: { k: 'x'.repeat(16 * 1024 - 7) } }, 'metadata'],
      ['metadata 9 levels deep', { metadata: nestedObject(9) }, 'metadata'],
      ['metadata 9 levels deep through arrays', { metadata: { a: [[[[[[[[1]]]]]]]] } }, 'metadata'],
      ['metadata key "constructor"', { metadata: { constructor: 'x' } }, 'constructor'],
      ['metadata key "prototype"', { metadata: { prototype: 1 } }, 'prototype'],
      ['metadata key "constructor" nested', { metadata: { a: { b: [{ constructor: 'x' }] } } }, 'constructor'],
      ['metadata key "prototype" nested', { metadata: { a: [{ b: { prototype: { x: 1 } } }] } }, 'prototype'],
      ['valid title with invalid metadata', { title: 'Would be valid', metadata: [] }, 'metadata'],
      // body shape
      ['body is an array', [], undefined],
      ['body is an array of an object', [{ title: 'x' }], undefined],
      ['body is a string', 'x', undefined],
      ['body is a number', 42, undefined],
      ['body is null', null, undefined],
      // control characters and bidi overrides
      ...['\u0000', '\u0007', '\u007f', '\u202e', '\u0085', '\u2066', '\n', '\t', '\u001b'].flatMap((char) => {
        const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
        return [
          [`${code} in title`, { title: `bad${char}title` }, 'title'],
          [`${code} in a tag`, { tags: ['fine', `bad${char}tag`] }, 'tag'],
        ] as [string, unknown, string][];
      }),
      ...['\u0000', '\u0007', '\u007f', '\u202e', '\u000b'].map((char) => {
        const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
        return [`${code} in description`, { description: `bad${char}description` }, 'description'] as [
          string,
          unknown,
          string,
        ];
      }),
    ];

    it.each(cases)('%s', async (_name, body, mentions) => {
      const id = docs.alice[1];
      const before = await snapshot(id);
      // Primitive bodies must be sent as raw JSON text.
      const response = await put(id, tokens.alice, JSON.stringify(body));
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(mentions ?? '');
      expect(await snapshot(id)).toEqual(before);
    });

    it('rejects invalid bodies from every caller, including admin and erin', async () => {
      const id = docs.alice[1];
      const before = await snapshot(id);
      for (const token of [tokens.admin, tokens.erin]) {
        expectError(await put(id, token, { status: 'archived' }), 400, 'validation_failed');
        expectError(await put(id, token, { uploadedBy: t.user('bob').id }), 400, 'validation_failed');
      }
      expect(await snapshot(id)).toEqual(before);
    });
  });

  describe('hostile and malformed bodies', () => {
    it('answers 400 invalid_json to "__proto__" keys, pollutes nothing and keeps serving', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      for (const raw of [
        '{"title":"x","__proto__":{"polluted":"yes"}}',
        '{"metadata":{"__proto__":{"polluted":"yes"}}}',
        '{"metadata":{"a":[{"__proto__":{"polluted":"yes"}}]}}',
        '{"tags":["a"],"__proto__":{"isAdmin":true,"polluted":"yes"}}',
      ]) {
        const response = await put(id, tokens.alice, raw);
        expectError(response, 400, 'invalid_json');
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      expect(await snapshot(id)).toEqual(before);

      const ok = await put(id, tokens.alice, { title: 'Still works', metadata: { safe: true } });
      expect(ok.status).toBe(200);
      expect(ok.body.document.metadata).toEqual({ safe: true });
      expect(Object.keys(ok.body.document).sort()).toEqual(DOCUMENT_FIELDS);
    });

    it('answers 400 to "constructor": {"prototype": ...} and pollutes nothing', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      const response = await put(id, tokens.alice, '{"metadata":{"constructor":{"prototype":{"polluted":"yes"}}}}');
      // Rejected either by the JSON parser (invalid_json) or by the body check (validation_failed).
      expect(response.status).toBe(400);
      expect(['invalid_json', 'validation_failed']).toContain(response.body.error);
      expect(Object.keys(response.body).sort()).toEqual(['details', 'error']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await snapshot(id)).toEqual(before);
    });

    it('answers 400 (not 500) to metadata nested 3,000 levels deep and keeps serving', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      const depth = 3_000;
      const deepObject = `{"metadata":${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}}`;
      const deepArray = `{"metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const deepUnknown = `{"foo":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      for (const raw of [deepObject, deepArray, deepUnknown]) {
        expect(raw.length).toBeLessThan(20_000);
        expect(() => JSON.parse(raw)).not.toThrow();
        const response = await put(id, tokens.alice, raw);
        expectError(response, 400, 'validation_failed');
      }
      expect(await snapshot(id)).toEqual(before);
      const ok = await put(id, tokens.alice, { title: 'Alive after deep nesting' });
      expect(ok.status).toBe(200);
      expect(ok.body.document.title).toBe('Alive after deep nesting');
    });

    it('answers 415 unsupported_media_type to a body that is not application/json, and changes nothing', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      const json = JSON.stringify({ title: 'Sent as text' });
      for (const contentType of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/jsonx',
      ]) {
        const response = await api()
          .put(`/api/documents/${id}`)
          .set('Authorization', `Bearer ${tokens.alice}`)
          .set('Content-Type', contentType)
          .send(json);
        expectError(response, 415, 'unsupported_media_type');
      }
      // A body with no Content-Type at all.
      const untyped = await fetch(`${t.url}/api/documents/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.alice}` },
        body: new TextEncoder().encode(json),
      });
      expect(untyped.status).toBe(415);
      expect(await untyped.json()).toEqual({ error: 'unsupported_media_type', details: expect.any(String) });
      expect(await snapshot(id)).toEqual(before);
    });

    it('answers 413 payload_too_large to a body over 1 MiB, and changes nothing', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      const body = JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 1024) });
      const response = await put(id, tokens.alice, body);
      expectError(response, 413, 'payload_too_large');
      expect(await snapshot(id)).toEqual(before);
      expect((await put(id, tokens.alice, {})).status).toBe(200);
    });

    it('answers 400 invalid_json to malformed JSON, and changes nothing', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      for (const raw of ['{"title": "x"', '{title: "x"}', "{'title':'x'}", '{"title":"x",}', 'not json', '{"a":1}}']) {
        const response = await put(id, tokens.alice, raw);
        expectError(response, 400, 'invalid_json');
      }
      expect(await snapshot(id)).toEqual(before);
    });

    it('answers 400 to a PUT without a body, and changes nothing', async () => {
      const id = docs.alice[2];
      const before = await snapshot(id);
      const noBody = await api().put(`/api/documents/${id}`).set('Authorization', `Bearer ${tokens.alice}`);
      expectError(noBody, 400, 'validation_failed');
      const emptyJson = await api()
        .put(`/api/documents/${id}`)
        .set('Authorization', `Bearer ${tokens.alice}`)
        .set('Content-Type', 'application/json')
        .send('');
      expectError(emptyJson, 400, 'invalid_json');
      expect(await snapshot(id)).toEqual(before);
    });
  });

  describe('ETag and If-Match', () => {
    it('applies a PUT whose If-Match is the current ETag and answers a new ETag', async () => {
      const id = docs.admin[0];
      const current = await put(id, tokens.admin, {});
      expect(current.status).toBe(200);
      const etag = current.headers.etag;
      expect(etag).toEqual(expect.any(String));
      const version = await rowVersion(id);

      const response = await put(id, tokens.admin, { title: 'Conditional update' }, { 'If-Match': etag });
      expect(response.status).toBe(200);
      expect(response.body.document.title).toBe('Conditional update');
      expect(response.headers.etag).toEqual(expect.any(String));
      expect(response.headers.etag).not.toBe(etag);
      expect(await rowVersion(id)).toBe(version + 1);

      // The new ETag is the current one: {} answers it again, and it is accepted as If-Match.
      expect((await put(id, tokens.admin, {})).headers.etag).toBe(response.headers.etag);
      const next = await put(id, tokens.admin, { title: 'Second conditional' }, { 'If-Match': response.headers.etag });
      expect(next.status).toBe(200);
      expect(next.body.document.title).toBe('Second conditional');
    });

    it('answers 412 precondition_failed to a stale If-Match and changes nothing', async () => {
      const id = docs.admin[0];
      const stale = (await put(id, tokens.admin, {})).headers.etag;
      const fresh = await put(id, tokens.admin, { title: 'Moved on' });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.etag).not.toBe(stale);
      const before = await snapshot(id);

      for (const body of [{ title: 'Lost update' }, { metadata: { lost: true } }, {}]) {
        const response = await put(id, tokens.admin, body, { 'If-Match': stale });
        expectError(response, 412, 'precondition_failed');
        // The current ETag comes with the 412, so a client can retry without a GET.
        expect(response.headers.etag).toBe(fresh.headers.etag);
      }
      for (const bogus of ['"not-an-etag"', `W/${fresh.headers.etag}`]) {
        const response = await put(id, tokens.admin, { title: 'Lost update' }, { 'If-Match': bogus });
        expectError(response, 412, 'precondition_failed');
        expect(response.headers.etag).toBe(fresh.headers.etag);
      }
      expect(await snapshot(id)).toEqual(before);

      const refused = await put(id, tokens.admin, { title: 'Retried' }, { 'If-Match': stale });
      const retried = await put(id, tokens.admin, { title: 'Retried' }, { 'If-Match': refused.headers.etag });
      expect(retried.status).toBe(200);
      expect(retried.body.document.title).toBe('Retried');
    });

    it('gives exactly one 200 and one 412 to two concurrent PUTs with the same If-Match; rowVersion rises by one', async () => {
      const id = docs.admin[0];
      for (let round = 0; round < 5; round++) {
        const etag = (await put(id, tokens.admin, {})).headers.etag;
        const version = await rowVersion(id);
        const historyBefore = await historyCount(id);
        const bodies = [
          { title: `Race ${round} A`, tags: [`a${round}`] },
          { title: `Race ${round} B`, tags: [`b${round}`] },
        ];
        const responses = await Promise.all(
          bodies.map((body, index) => put(id, index ? tokens.erin : tokens.admin, body, { 'If-Match': etag })),
        );
        expect(responses.map((response) => response.status).sort((a, b) => a - b)).toEqual([200, 412]);
        const winner = responses.findIndex((response) => response.status === 200);
        expectError(responses[1 - winner], 412, 'precondition_failed');
        expect(responses[1 - winner].headers.etag).toBe(responses[winner].headers.etag);
        expect(await rowVersion(id)).toBe(version + 1);
        expect(await historyCount(id)).toBe(historyBefore + 1);
        const stored = await row(id);
        expect({ title: stored.title, tags: stored.tags }).toEqual(bodies[winner]);
        expect(responses[winner].body.document).toEqual(asJson(stored));
      }
    });

    it('without If-Match applies every one of N concurrent PUTs whole: all 200, final row is one request, never a mix', async () => {
      const id = docs.admin[1];
      const n = 10;
      const version = await rowVersion(id);
      const historyBefore = await historyCount(id);
      const bodies = Array.from({ length: n }, (_, index) => ({
        title: `Concurrent title ${index}`,
        description: `Concurrent description ${index}`,
        tags: [`c${index}`, `shared`, `z${index}`],
        metadata: { writer: index, nested: { value: `v${index}` } },
      }));
      const tokenFor = [tokens.admin, tokens.erin];
      const responses = await Promise.all(bodies.map((body, index) => put(id, tokenFor[index % 2], body)));

      expect(responses.map((response) => response.status)).toEqual(Array(n).fill(200));
      responses.forEach((response, index) => expect(response.body.document).toMatchObject(bodies[index]));
      const stored = await row(id);
      const final = {
        title: stored.title,
        description: stored.description,
        tags: stored.tags,
        metadata: stored.metadata,
      };
      expect(bodies).toContainEqual(final);
      // Every update landed (each one differs from every other), none was lost or merged.
      expect(await rowVersion(id)).toBe(version + n);
      expect(await historyCount(id)).toBe(historyBefore + n);
      const winner = bodies.findIndex((body) => body.title === final.title);
      expect(final).toEqual(bodies[winner]);

      // Writes that land in the same millisecond still move updatedAt strictly forward, in write order.
      const entries = (await t.dataSource.getRepository(DocumentHistory).findBy({ documentId: id }))
        .filter((entry) => entry.rowVersion > version)
        .sort((a, b) => a.rowVersion - b.rowVersion);
      expect(entries.map((entry) => entry.rowVersion)).toEqual(
        Array.from({ length: n }, (_, index) => version + index + 1),
      );
      for (let index = 1; index < entries.length; index++) {
        expect(entries[index].changedAt.getTime()).toBeGreaterThan(entries[index - 1].changedAt.getTime());
      }
      expect(stored.updatedAt.getTime()).toBe(entries[n - 1].changedAt.getTime());
    });
  });

  describe('GET /api/documents/{documentId}/history', () => {
    it('lists the changes newest first with changedBy, changedAt, rowVersion and {field: {from, to}}', async () => {
      const id = docs.bob[1];
      const start = await row(id);
      expect((await history(id, tokens.bob)).body).toEqual({ history: [] });

      const first = await put(id, tokens.bob, { title: 'History 1', tags: ['h1'] });
      expect(first.status).toBe(200);
      await put(id, tokens.bob, {}).expect(200); // no change: no entry
      await put(id, tokens.bob, { foo: 1 }).expect(400); // rejected: no entry
      const second = await put(id, tokens.erin, { metadata: { step: 2 } });
      expect(second.status).toBe(200);
      const third = await put(id, tokens.admin, { title: 'History 3', tags: ['h1'], description: 'Three' });
      expect(third.status).toBe(200);

      const response = await history(id, tokens.bob);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['history']);
      const entries = response.body.history as Record<string, unknown>[];
      expect(entries).toHaveLength(3);
      for (const entry of entries) {
        expect(Object.keys(entry)).toEqual(expect.arrayContaining(['changedBy', 'changedAt', 'rowVersion', 'changes']));
        expect(entry.changedAt).toMatch(ISO_UTC);
      }
      expect(entries.map((entry) => entry.rowVersion)).toEqual([
        start.rowVersion + 3,
        start.rowVersion + 2,
        start.rowVersion + 1,
      ]);
      expect(entries[0]).toMatchObject({
        changedBy: t.user('admin').id,
        changedAt: third.body.document.updatedAt,
        changes: {
          title: { from: 'History 1', to: 'History 3' },
          description: { from: start.description, to: 'Three' },
        },
      });
      // tags were sent but unchanged: not recorded as a change.
      expect(Object.keys(entries[0].changes as object).sort()).toEqual(['description', 'title']);
      expect(entries[1]).toMatchObject({
        changedBy: t.user('erin').id,
        changedAt: second.body.document.updatedAt,
        changes: { metadata: { from: start.metadata, to: { step: 2 } } },
      });
      expect(Object.keys(entries[1].changes as object)).toEqual(['metadata']);
      expect(entries[2]).toMatchObject({
        changedBy: t.user('bob').id,
        changedAt: first.body.document.updatedAt,
        changes: { title: { from: start.title, to: 'History 1' }, tags: { from: start.tags, to: ['h1'] } },
      });
      expect(Object.keys(entries[2].changes as object).sort()).toEqual(['tags', 'title']);

      // Users who may update the document may read its history too.
      for (const token of [tokens.admin, tokens.erin]) {
        const other = await history(id, token);
        expect(other.status).toBe(200);
        expect(other.body).toEqual(response.body);
      }
    });

    it('answers every reader (a member of the project), and 404 to a non-member, as for an unknown id', async () => {
      expect((await history(docs.alice[0], tokens.bob)).status).toBe(200);
      expect((await history(docs.bob[1], tokens.alice)).status).toBe(200);
      const { projectId } = await row(docs.alice[0]);
      const bob = t.user('bob').id;
      const [membership] = await t.dataSource.query<{ role: string; createdAt: unknown }[]>(
        'SELECT role, createdAt FROM project_members WHERE projectId = ? AND userId = ?',
        [projectId, bob],
      );
      await t.dataSource.query('DELETE FROM project_members WHERE projectId = ? AND userId = ?', [projectId, bob]);
      try {
        expectError(await history(docs.alice[0], tokens.bob), 404, 'document_not_found');
        expectError(await put(docs.alice[0], tokens.bob, { title: 'x' }), 404, 'document_not_found');
      } finally {
        await t.dataSource.query(
          'INSERT INTO project_members (projectId, userId, role, createdAt) VALUES (?, ?, ?, ?)',
          [projectId, bob, membership.role, membership.createdAt],
        );
      }
    });

    it('answers 404 to an unknown id, 400 to a non-UUID, 401 without token', async () => {
      expectError(await history(randomUUID(), tokens.alice), 404, 'document_not_found');
      expectError(await history(randomUUID(), tokens.admin), 404, 'document_not_found');
      const notUuid = await history('not-a-uuid', tokens.alice);
      expectError(notUuid, 400, 'validation_failed');
      expect(notUuid.body.details).toContain('documentId');
      expectError(await api().get(`/api/documents/${docs.alice[0]}/history`), 401, 'unauthorized');
    });
  });

  describe('persistence', () => {
    it('keeps every change across an app restart', async () => {
      const id = docs.alice[0];
      const body = {
        title: 'Survives restart ✓',
        description: 'Persisted\nacross restarts',
        tags: ['persist', 'restart'],
        metadata: { persisted: true, nested: { list: [1, 2, 3] } },
      };
      const updated = await put(id, tokens.alice, body);
      expect(updated.status).toBe(200);
      const etag = updated.headers.etag;

      await t.restart();

      // Read back through the API ({} changes nothing and answers the stored document) and the database.
      const after = await put(id, tokens.alice, {});
      expect(after.status).toBe(200);
      expect(after.body).toEqual(updated.body);
      expect(after.headers.etag).toBe(etag);
      expect(asJson(await row(id))).toEqual(updated.body.document);

      // The ETag still guards updates after the restart.
      const conditional = await put(id, tokens.alice, { title: 'After restart' }, { 'If-Match': etag });
      expect(conditional.status).toBe(200);
      expectError(await put(id, tokens.alice, { title: 'Stale' }, { 'If-Match': etag }), 412, 'precondition_failed');
      expect((await history(id, tokens.alice)).body.history[0].changes).toEqual({
        title: { from: 'Survives restart ✓', to: 'After restart' },
      });
    });
  });
});
