import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Document } from '../../src/documents/entities/document.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { documentUpdateSuite, nestedObject, type DocumentUpdateState } from '../support/document-fixtures.js';
import { expectError } from '../support/expect-error.js';

/** Every error, whatever the layer, is exactly {error, details} with two strings. */

describe.each(databasesUnderTest())('PUT /api/documents/{documentId}: refusals on %s', (kind) => {
  const { state, api, put, history, row, snapshot } = documentUpdateSuite(kind);
  let t: DocumentUpdateState['t'];
  let tokens: DocumentUpdateState['tokens'];
  let docs: DocumentUpdateState['docs'];
  beforeAll(() => {
    ({ t, tokens, docs } = state);
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
    it('answers 404 document_not_found for an unknown for any user', async () => {
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
});
