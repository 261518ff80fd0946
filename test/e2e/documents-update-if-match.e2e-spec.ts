import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { documentUpdateSuite, DOCUMENT_FIELDS, type DocumentUpdateState } from '../support/document-fixtures.js';
import { expectError } from '../support/expect-error.js';

/** Every error, whatever the layer, is exactly {error, details} with two strings. */

describe.each(databasesUnderTest())('PUT /api/documents/{documentId}: hostile bodies and If-Match on %s', (kind) => {
  const { state, api, put, row, historyCount, rowVersion, snapshot, asJson } = documentUpdateSuite(kind);
  let t: DocumentUpdateState['t'];
  let tokens: DocumentUpdateState['tokens'];
  let docs: DocumentUpdateState['docs'];
  beforeAll(() => {
    ({ t, tokens, docs } = state);
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
});
