import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { DocumentVersion } from '../../src/documents/entities/document-version.entity.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { OutboxEvent } from '../../src/events/entities/outbox-event.entity.js';
import { DocumentFilesSuite } from '../support/document-files-suite.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
/** A 1x1 PNG: file-type recognises it whatever the client declares. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe.each(storageSetupsUnderTest())('documents with files on $kind, $driver driver', ({ kind, driver }) => {
  const suite = new DocumentFilesSuite(kind, driver);
  const { url, auth, get, create, fileOf, basics } = suite;

  describe('POST /api/documents', () => {
    it('creates a draft at version 1 from the form, with Location, ETag, its version, history and event', async () => {
      const bytes = Buffer.from('Minutes of the kick-off meeting.\n');
      const response = await create(
        suite.tokens.alice,
        [
          ...basics(),
          { name: 'description', value: 'Notes\tfrom the kick-off.' },
          { name: 'tags', value: ' minutes ' },
          { name: 'tags', value: 'kickoff' },
          { name: 'tags', value: 'minutes' },
          { name: 'metadata', value: '{"meeting":{"room":"B2"},"attendees":4}' },
        ],
        fileOf('reports/2026/Kick-off minutes.txt', bytes, 'text/plain'),
      );
      expect(response.status).toBe(201);
      const document = response.body.document;
      expect(document).toMatchObject({
        projectId: suite.projectId,
        documentTypeId: suite.typeId,
        title: 'Kick-off minutes',
        description: 'Notes\tfrom the kick-off.',
        fileName: 'Kick-off minutes.txt',
        fileSize: bytes.length,
        mimeType: 'text/plain',
        currentVersion: 1,
        status: 'draft',
        tags: ['minutes', 'kickoff'],
        metadata: { meeting: { room: 'B2' }, attendees: 4 },
        uploadedBy: suite.t.user('alice').id,
        sha256: sha256(bytes),
      });
      expect(response.headers.get('location')).toBe(`/api/documents/${document.id}`);
      expect(response.headers.get('etag')).toBe('"v1"');

      const row = await suite.t.dataSource.getRepository(Document).findOneByOrFail({ id: document.id });
      expect(row).toMatchObject({ sha256: sha256(bytes), rowVersion: 1, fileSize: bytes.length });
      const versions = await suite.t.dataSource.getRepository(DocumentVersion).findBy({ documentId: document.id });
      expect(versions).toEqual([
        expect.objectContaining({ version: 1, sha256: sha256(bytes), fileName: 'Kick-off minutes.txt', comment: '' }),
      ]);
      const history = await suite.t.dataSource.getRepository(DocumentHistory).findBy({ documentId: document.id });
      expect(history.map((entry) => entry.action)).toEqual(['created']);
      const events = await suite.t.dataSource.getRepository(OutboxEvent).findBy({ documentId: document.id });
      expect(events).toEqual([
        expect.objectContaining({
          type: 'document.created',
          actorId: suite.t.user('alice').id,
          projectId: suite.projectId,
          payload: { title: 'Kick-off minutes', actorName: 'alice' },
        }),
      ]);
      // The bytes are in the store at their content address.
      expect(await suite.t.stored.read(sha256(bytes))).toEqual(bytes);
    });

    it('detects the media type from the bytes and does not trust a contradicting declared type', async () => {
      const png = await create(suite.tokens.alice, basics(), fileOf('pixel.txt', PNG, 'text/plain'));
      expect(png.status).toBe(201);
      expect(png.body.document.mimeType).toBe('image/png');
      const claimed = await create(suite.tokens.alice, basics(), fileOf('fake.png', 'not a png at all', 'image/png'));
      expect(claimed.body.document.mimeType).toBe('application/octet-stream');
      const odd = await create(suite.tokens.alice, basics(), fileOf('data.bin', 'x', 'not a type'));
      expect(odd.body.document.mimeType).toBe('application/octet-stream');
      const declared = await create(suite.tokens.alice, basics(), fileOf('notes.md', '# Notes', 'text/markdown'));
      expect(declared.body.document.mimeType).toBe('text/markdown');
    });

    it('takes an explicit title and NFC-normalises the file name', async () => {
      const response = await create(
        suite.tokens.bob,
        [...basics(), { name: 'title', value: 'Budget 2027' }],
        fileOf('Cafe\u0301.csv', 'a,b\n1,2\n', 'text/csv'),
      );
      expect(response.status).toBe(201);
      expect(response.body.document).toMatchObject({ title: 'Budget 2027', fileName: 'Caf\u00e9.csv' });
    });
  });

  describe('GET /api/documents/{id}', () => {
    it('answers the document with sha256 and the ETag PUT takes', async () => {
      const id = suite.t.seed.documents[0].id;
      const response = await get(`/api/documents/${id}`, suite.tokens.bob);
      expect(response.status).toBe(200);
      const row = await suite.t.dataSource.getRepository(Document).findOneByOrFail({ id });
      expect(response.headers.get('etag')).toBe(`"v${row.rowVersion}"`);
      const body = (await response.json()) as { document: Record<string, unknown> };
      expect(body.document).toMatchObject({ id, sha256: row.sha256, fileSize: row.fileSize, title: row.title });
      expect(body.document.sha256).toMatch(/^[0-9a-f]{64}$/);
      const put = await fetch(url(`/api/documents/${id}`), {
        method: 'PUT',
        headers: {
          ...auth(suite.tokens.alice),
          'content-type': 'application/json',
          'if-match': response.headers.get('etag')!,
        },
        body: JSON.stringify({ title: 'Renamed with the ETag of GET' }),
      });
      expect(put.status).toBe(200);
    });

    it('answers 404 to an unknown id and 400 to a malformed one', async () => {
      const unknown = await get('/api/documents/00000000-0000-4000-8000-000000000000', suite.tokens.admin);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'document_not_found' });
      expect((await get('/api/documents/not-a-uuid', suite.tokens.admin)).status).toBe(400);
    });
  });

  describe('GET and HEAD /api/documents/{id}/content', () => {
    const bytes = Buffer.from('0123456789abcdefghij');
    let id: string;
    let etag: string;

    beforeAll(async () => {
      const response = await create(suite.tokens.alice, basics(), fileOf('Résumé 報告.html', bytes, 'text/html'));
      if (response.status !== 201) throw new Error(`setup upload failed: ${response.status}`);
      id = response.body.document.id;
      etag = `"${sha256(bytes)}"`;
    });

    it('answers the bytes with every download header', async () => {
      const response = await get(`/api/documents/${id}/content`, suite.tokens.bob);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="Resume __.html"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E5%A0%B1%E5%91%8A.html`,
      );
    });

    it('answers HEAD with the same headers and no body', async () => {
      const response = await fetch(url(`/api/documents/${id}/content`), {
        method: 'HEAD',
        headers: auth(suite.tokens.bob),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(response.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect((await response.arrayBuffer()).byteLength).toBe(0);
      const ranged = await fetch(url(`/api/documents/${id}/content`), {
        method: 'HEAD',
        headers: { ...auth(suite.tokens.bob), range: 'bytes=5-9' },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 5-9/${bytes.length}`);
      expect(ranged.headers.get('content-length')).toBe('5');
    });

    it('answers one Range with 206 and Content-Range; several ranges or a stale If-Range with the whole file', async () => {
      const cases: [string, number, string, string | null][] = [
        ['bytes=2-5', 206, '2345', `bytes 2-5/${bytes.length}`],
        ['bytes=-3', 206, 'hij', `bytes 17-19/${bytes.length}`],
        ['bytes=15-', 206, 'fghij', `bytes 15-19/${bytes.length}`],
        ['bytes=18-1000', 206, 'ij', `bytes 18-19/${bytes.length}`],
        ['bytes=0-1,4-5', 200, bytes.toString(), null],
        ['items=0-1', 200, bytes.toString(), null],
      ];
      for (const [range, status, body, contentRange] of cases) {
        const response = await get(`/api/documents/${id}/content`, suite.tokens.bob, { range });
        expect({ range, status: response.status }).toEqual({ range, status });
        expect(await response.text()).toBe(body);
        expect(response.headers.get('content-range')).toBe(contentRange);
        expect(response.headers.get('content-length')).toBe(String(body.length));
      }
      const ifRange = await get(`/api/documents/${id}/content`, suite.tokens.bob, {
        range: 'bytes=0-1',
        'if-range': '"x"',
      });
      expect(ifRange.status).toBe(200);
      const matching = await get(`/api/documents/${id}/content`, suite.tokens.bob, {
        range: 'bytes=0-1',
        'if-range': etag,
      });
      expect(matching.status).toBe(206);
    });

    it('answers 416 with Content-Range: bytes */size to an unsatisfiable range', async () => {
      for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=-0']) {
        const response = await get(`/api/documents/${id}/content`, suite.tokens.bob, { range });
        expect(response.status).toBe(416);
        expect(response.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
        expect(await response.json()).toEqual({ error: 'range_not_satisfiable', details: expect.any(String) });
      }
    });

    it('answers 304 to a matching If-None-Match', async () => {
      for (const header of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
        const response = await get(`/api/documents/${id}/content`, suite.tokens.bob, { 'if-none-match': header });
        expect(response.status).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(await response.text()).toBe('');
      }
      const other = await get(`/api/documents/${id}/content`, suite.tokens.bob, { 'if-none-match': '"other"' });
      expect(other.status).toBe(200);
    });

    it('serves ?version=N, answers 404 version_not_found to an unknown one and 400 to a malformed one', async () => {
      const v1 = await get(`/api/documents/${id}/content?version=1`, suite.tokens.bob);
      expect(await v1.text()).toBe(bytes.toString());
      const unknown = await get(`/api/documents/${id}/content?version=2`, suite.tokens.bob);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'version_not_found', details: expect.any(String) });
      for (const version of ['0', 'abc', '1.5', '-1']) {
        const bad = await get(`/api/documents/${id}/content?version=${version}`, suite.tokens.bob);
        expect(bad.status).toBe(400);
      }
      const repeated = await get(`/api/documents/${id}/content?version=1&version=1`, suite.tokens.bob);
      expect(repeated.status).toBe(400);
    });

    it('answers 404 version_not_found, saying why, for a version migrated without bytes', async () => {
      const created = await create(suite.tokens.alice, basics(), fileOf('old.txt', 'migrated'));
      const migrated = created.body.document.id as string;
      await suite.t.dataSource.query('UPDATE document_versions SET sha256 = NULL WHERE documentId = ?', [migrated]);
      const response = await get(`/api/documents/${migrated}/content`, suite.tokens.alice);
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: string; details: string };
      expect(body.error).toBe('version_not_found');
      expect(body.details).toMatch(/before files were stored/);
    });

    it('serves the seeded documents from the store', async () => {
      const seeded = suite.t.seed.documents[0].id;
      const response = await get(`/api/documents/${seeded}/content`, suite.tokens.alice);
      expect(response.status).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const row = await suite.t.dataSource.getRepository(Document).findOneByOrFail({ id: seeded });
      expect(sha256(body)).toBe(row.sha256);
      expect(body.length).toBe(row.fileSize);
    });
  });
});
