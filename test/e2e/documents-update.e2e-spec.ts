import { beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import {
  documentUpdateSuite,
  DOCUMENT_FIELDS,
  ISO_UTC,
  UUID,
  nestedObject,
  type DocumentUpdateState,
} from '../support/document-fixtures.js';

describe.each(databasesUnderTest())('PUT /api/documents/{documentId} on %s', (kind) => {
  const { state, api, put, row, snapshot, asJson } = documentUpdateSuite(kind);
  let t: DocumentUpdateState['t'];
  let tokens: DocumentUpdateState['tokens'];
  let docs: DocumentUpdateState['docs'];
  beforeAll(() => {
    ({ t, tokens, docs } = state);
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
});
