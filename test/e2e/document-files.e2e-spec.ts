import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { DocumentVersion } from '../../src/documents/entities/document-version.entity.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { OutboxEvent } from '../../src/events/entities/outbox-event.entity.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { addPlainUser, addProject, sendMultipart, storeContents, type Part } from '../support/uploads.js';
import { expectError } from '../support/expect-error.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
/** A 1x1 PNG: file-type recognises it whatever the client declares. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe.each(storageSetupsUnderTest())('documents with files on $kind, $driver driver', ({ kind, driver }) => {
  let t: TestApp;
  let tokens: Record<string, string>;
  let projectId: string;
  let typeId: string;

  const url = (path: string) => `${t.url}${path}`;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const get = (path: string, token: string, headers: Record<string, string> = {}) =>
    fetch(url(path), { headers: { ...auth(token), ...headers } });
  const create = (token: string, fields: Part[], file: Part, headers: Record<string, string> = {}) =>
    sendMultipart(url('/api/documents'), token, [...fields, file], headers);
  const fileOf = (name: string, bytes: Buffer | string, type?: string): Part => ({
    name: 'file',
    fileName: name,
    bytes,
    type,
  });
  const basics = (project = projectId): Part[] => [
    { name: 'projectId', value: project },
    { name: 'documentTypeId', value: typeId },
  ];
  const addVersion = (id: string, token: string, parts: Part[], headers: Record<string, string> = {}) =>
    sendMultipart(url(`/api/documents/${id}/versions`), token, parts, headers);

  beforeAll(async () => {
    t = await createTestApp(kind, { STORAGE_DRIVER: driver });
    tokens = {};
    for (const name of ['admin', 'alice', 'bob', 'erin']) tokens[name] = await t.login(name);
    projectId = t.seed.projects[0].id;
    typeId = t.seed.documentTypes[0].id;
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('POST /api/documents', () => {
    it('creates a draft at version 1 from the form, with Location, ETag, its version, history and event', async () => {
      const bytes = Buffer.from('Minutes of the kick-off meeting.\n');
      const response = await create(
        tokens.alice,
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
        projectId,
        documentTypeId: typeId,
        title: 'Kick-off minutes',
        description: 'Notes\tfrom the kick-off.',
        fileName: 'Kick-off minutes.txt',
        fileSize: bytes.length,
        mimeType: 'text/plain',
        currentVersion: 1,
        status: 'draft',
        tags: ['minutes', 'kickoff'],
        metadata: { meeting: { room: 'B2' }, attendees: 4 },
        uploadedBy: t.user('alice').id,
        sha256: sha256(bytes),
      });
      expect(response.headers.get('location')).toBe(`/api/documents/${document.id}`);
      expect(response.headers.get('etag')).toBe('"v1"');

      const row = await t.dataSource.getRepository(Document).findOneByOrFail({ id: document.id });
      expect(row).toMatchObject({ sha256: sha256(bytes), rowVersion: 1, fileSize: bytes.length });
      const versions = await t.dataSource.getRepository(DocumentVersion).findBy({ documentId: document.id });
      expect(versions).toEqual([
        expect.objectContaining({ version: 1, sha256: sha256(bytes), fileName: 'Kick-off minutes.txt', comment: '' }),
      ]);
      const history = await t.dataSource.getRepository(DocumentHistory).findBy({ documentId: document.id });
      expect(history.map((entry) => entry.action)).toEqual(['created']);
      const events = await t.dataSource.getRepository(OutboxEvent).findBy({ documentId: document.id });
      expect(events).toEqual([
        expect.objectContaining({
          type: 'document.created',
          actorId: t.user('alice').id,
          projectId,
          payload: { title: 'Kick-off minutes', actorName: 'alice' },
        }),
      ]);
      // The bytes are in the store at their content address.
      expect(await t.stored.read(sha256(bytes))).toEqual(bytes);
    });

    it('detects the media type from the bytes and does not trust a contradicting declared type', async () => {
      const png = await create(tokens.alice, basics(), fileOf('pixel.txt', PNG, 'text/plain'));
      expect(png.status).toBe(201);
      expect(png.body.document.mimeType).toBe('image/png');
      const claimed = await create(tokens.alice, basics(), fileOf('fake.png', 'not a png at all', 'image/png'));
      expect(claimed.body.document.mimeType).toBe('application/octet-stream');
      const odd = await create(tokens.alice, basics(), fileOf('data.bin', 'x', 'not a type'));
      expect(odd.body.document.mimeType).toBe('application/octet-stream');
      const declared = await create(tokens.alice, basics(), fileOf('notes.md', '# Notes', 'text/markdown'));
      expect(declared.body.document.mimeType).toBe('text/markdown');
    });

    it('takes an explicit title and NFC-normalises the file name', async () => {
      const response = await create(
        tokens.bob,
        [...basics(), { name: 'title', value: 'Budget 2027' }],
        fileOf('Cafe\u0301.csv', 'a,b\n1,2\n', 'text/csv'),
      );
      expect(response.status).toBe(201);
      expect(response.body.document).toMatchObject({ title: 'Budget 2027', fileName: 'Caf\u00e9.csv' });
    });
  });

  describe('GET /api/documents/{id}', () => {
    it('answers the document with sha256 and the ETag PUT takes', async () => {
      const id = t.seed.documents[0].id;
      const response = await get(`/api/documents/${id}`, tokens.bob);
      expect(response.status).toBe(200);
      const row = await t.dataSource.getRepository(Document).findOneByOrFail({ id });
      expect(response.headers.get('etag')).toBe(`"v${row.rowVersion}"`);
      const body = (await response.json()) as { document: Record<string, unknown> };
      expect(body.document).toMatchObject({ id, sha256: row.sha256, fileSize: row.fileSize, title: row.title });
      expect(body.document.sha256).toMatch(/^[0-9a-f]{64}$/);
      const put = await fetch(url(`/api/documents/${id}`), {
        method: 'PUT',
        headers: {
          ...auth(tokens.alice),
          'content-type': 'application/json',
          'if-match': response.headers.get('etag')!,
        },
        body: JSON.stringify({ title: 'Renamed with the ETag of GET' }),
      });
      expect(put.status).toBe(200);
    });

    it('answers 404 to an unknown id and 400 to a malformed one', async () => {
      const unknown = await get('/api/documents/00000000-0000-4000-8000-000000000000', tokens.admin);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'document_not_found' });
      expect((await get('/api/documents/not-a-uuid', tokens.admin)).status).toBe(400);
    });
  });

  describe('GET and HEAD /api/documents/{id}/content', () => {
    const bytes = Buffer.from('0123456789abcdefghij');
    let id: string;
    let etag: string;

    beforeAll(async () => {
      const response = await create(tokens.alice, basics(), fileOf('Résumé 報告.html', bytes, 'text/html'));
      if (response.status !== 201) throw new Error(`setup upload failed: ${response.status}`);
      id = response.body.document.id;
      etag = `"${sha256(bytes)}"`;
    });

    it('answers the bytes with every download header', async () => {
      const response = await get(`/api/documents/${id}/content`, tokens.bob);
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
      const response = await fetch(url(`/api/documents/${id}/content`), { method: 'HEAD', headers: auth(tokens.bob) });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(response.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect((await response.arrayBuffer()).byteLength).toBe(0);
      const ranged = await fetch(url(`/api/documents/${id}/content`), {
        method: 'HEAD',
        headers: { ...auth(tokens.bob), range: 'bytes=5-9' },
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
        const response = await get(`/api/documents/${id}/content`, tokens.bob, { range });
        expect({ range, status: response.status }).toEqual({ range, status });
        expect(await response.text()).toBe(body);
        expect(response.headers.get('content-range')).toBe(contentRange);
        expect(response.headers.get('content-length')).toBe(String(body.length));
      }
      const ifRange = await get(`/api/documents/${id}/content`, tokens.bob, { range: 'bytes=0-1', 'if-range': '"x"' });
      expect(ifRange.status).toBe(200);
      const matching = await get(`/api/documents/${id}/content`, tokens.bob, { range: 'bytes=0-1', 'if-range': etag });
      expect(matching.status).toBe(206);
    });

    it('answers 416 with Content-Range: bytes */size to an unsatisfiable range', async () => {
      for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=-0']) {
        const response = await get(`/api/documents/${id}/content`, tokens.bob, { range });
        expect(response.status).toBe(416);
        expect(response.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
        expect(await response.json()).toEqual({ error: 'range_not_satisfiable', details: expect.any(String) });
      }
    });

    it('answers 304 to a matching If-None-Match', async () => {
      for (const header of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
        const response = await get(`/api/documents/${id}/content`, tokens.bob, { 'if-none-match': header });
        expect(response.status).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(await response.text()).toBe('');
      }
      const other = await get(`/api/documents/${id}/content`, tokens.bob, { 'if-none-match': '"other"' });
      expect(other.status).toBe(200);
    });

    it('serves ?version=N, answers 404 version_not_found to an unknown one and 400 to a malformed one', async () => {
      const v1 = await get(`/api/documents/${id}/content?version=1`, tokens.bob);
      expect(await v1.text()).toBe(bytes.toString());
      const unknown = await get(`/api/documents/${id}/content?version=2`, tokens.bob);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'version_not_found', details: expect.any(String) });
      for (const version of ['0', 'abc', '1.5', '-1']) {
        const bad = await get(`/api/documents/${id}/content?version=${version}`, tokens.bob);
        expect(bad.status).toBe(400);
      }
      const repeated = await get(`/api/documents/${id}/content?version=1&version=1`, tokens.bob);
      expect(repeated.status).toBe(400);
    });

    it('answers 404 version_not_found, saying why, for a version migrated without bytes', async () => {
      const created = await create(tokens.alice, basics(), fileOf('old.txt', 'migrated'));
      const migrated = created.body.document.id as string;
      await t.dataSource.query('UPDATE document_versions SET sha256 = NULL WHERE documentId = ?', [migrated]);
      const response = await get(`/api/documents/${migrated}/content`, tokens.alice);
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: string; details: string };
      expect(body.error).toBe('version_not_found');
      expect(body.details).toMatch(/before files were stored/);
    });

    it('serves the seeded documents from the store', async () => {
      const seeded = t.seed.documents[0].id;
      const response = await get(`/api/documents/${seeded}/content`, tokens.alice);
      expect(response.status).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const row = await t.dataSource.getRepository(Document).findOneByOrFail({ id: seeded });
      expect(sha256(body)).toBe(row.sha256);
      expect(body.length).toBe(row.fileSize);
    });
  });

  describe('versions', () => {
    let id: string;
    const v1 = Buffer.from('first draft\n');
    const v2 = Buffer.from('second draft, countersigned\n');

    beforeAll(async () => {
      const response = await create(tokens.alice, basics(), fileOf('contract.txt', v1, 'text/plain'));
      id = response.body.document.id;
    });

    it('answers 412 with the current ETag to a stale If-Match, and changes nothing', async () => {
      const before = await storeContents(t);
      const response = await addVersion(id, tokens.alice, [fileOf('contract-v2.txt', v2)], { 'if-match': '"v0"' });
      expectError(response, 412, 'precondition_failed');
      expect(response.headers.get('etag')).toBe('"v1"');
      expect(await t.dataSource.getRepository(DocumentVersion).countBy({ documentId: id })).toBe(1);
      expect(await storeContents(t)).toEqual(before);
    });

    it('adds version 2 with its comment, moving the document to the new file', async () => {
      const response = await addVersion(
        id,
        tokens.alice,
        [{ name: 'comment', value: 'Countersigned by legal' }, fileOf('contract-v2.txt', v2, 'text/plain')],
        { 'if-match': '"v1"' },
      );
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('"v2"');
      expect(response.body.document).toMatchObject({
        id,
        currentVersion: 2,
        fileName: 'contract-v2.txt',
        fileSize: v2.length,
        mimeType: 'text/plain',
        sha256: sha256(v2),
        title: 'contract',
        status: 'draft',
      });
      const current = await get(`/api/documents/${id}/content`, tokens.bob);
      expect(await current.text()).toBe(v2.toString());
      const first = await get(`/api/documents/${id}/content?version=1`, tokens.bob);
      expect(await first.text()).toBe(v1.toString());
      const history = await t.dataSource.getRepository(DocumentHistory).findBy({ documentId: id });
      expect(history.map((entry) => entry.action).sort()).toEqual(['created', 'version_added']);
      const events = await t.dataSource.getRepository(OutboxEvent).findBy({ documentId: id });
      expect(events.map((event) => event.type).sort()).toEqual(['document.created', 'document.version_added']);
    });

    it('lists the versions newest first with page and limit', async () => {
      const third = await addVersion(id, tokens.admin, [fileOf('contract-v3.txt', 'third')]);
      expect(third.status).toBe(201);
      expect(third.body.document.currentVersion).toBe(3);
      const response = await get(`/api/documents/${id}/versions`, tokens.bob);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { versions: Record<string, unknown>[]; pagination: unknown };
      expect(body.versions.map((version) => version.version)).toEqual([3, 2, 1]);
      expect(body.versions[1]).toEqual({
        version: 2,
        fileName: 'contract-v2.txt',
        fileSize: v2.length,
        mimeType: 'text/plain',
        sha256: sha256(v2),
        comment: 'Countersigned by legal',
        uploadedBy: t.user('alice').id,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(body.versions[0].uploadedBy).toBe(t.user('admin').id);
      expect(body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1, nextCursor: null });
      const page2 = (await (await get(`/api/documents/${id}/versions?page=2&limit=2`, tokens.bob)).json()) as {
        versions: { version: number }[];
        pagination: unknown;
      };
      expect(page2.versions.map((version) => version.version)).toEqual([1]);
      expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null });
      for (const query of ['limit=0', 'limit=101', 'page=0', 'cursor=x', 'page=1&page=2']) {
        expect((await get(`/api/documents/${id}/versions?${query}`, tokens.bob)).status).toBe(400);
      }
    });

    it('refuses a comment over 1,000 characters, and an archived document with 409 document_archived', async () => {
      const long = await addVersion(id, tokens.alice, [
        { name: 'comment', value: 'x'.repeat(1001) },
        fileOf('a.txt', 'a'),
      ]);
      expectError(long, 400, 'validation_failed');
      expect(long.body.details).toMatch(/comment/);
      const unknown = await addVersion(id, tokens.alice, [{ name: 'title', value: 'x' }, fileOf('a.txt', 'a')]);
      expectError(unknown, 400, 'validation_failed');
      await t.dataSource.query("UPDATE documents SET status = 'archived' WHERE id = ?", [id]);
      try {
        const archived = await addVersion(id, tokens.alice, [fileOf('a.txt', 'a')]);
        expectError(archived, 409, 'document_archived');
      } finally {
        await t.dataSource.query("UPDATE documents SET status = 'draft' WHERE id = ?", [id]);
      }
      expect(await t.dataSource.getRepository(DocumentVersion).countBy({ documentId: id })).toBe(3);
    });
  });

  describe('permissions', () => {
    type Who = 'owner' | 'viewer' | 'other' | 'manager' | 'editor' | 'admin' | 'outsider';
    const who: Who[] = ['owner', 'viewer', 'other', 'manager', 'editor', 'admin', 'outsider'];
    let as: Record<Who, string>;
    let team: string;
    let documentId: string;

    beforeAll(async () => {
      const ids: Record<string, string> = {};
      for (const name of ['owen', 'vera', 'oscar', 'mona', 'nina'])
        ids[name] = await addPlainUser(t, `${name}-${kind}`);
      team = await addProject(t, `Team ${kind}`, {
        [ids.owen]: 'contributor',
        [ids.vera]: 'viewer',
        [ids.oscar]: 'contributor',
        [ids.mona]: 'manager',
      });
      as = {
        owner: await t.login(`owen-${kind}`),
        viewer: await t.login(`vera-${kind}`),
        other: await t.login(`oscar-${kind}`),
        manager: await t.login(`mona-${kind}`),
        editor: tokens.erin, // not a member; role editor: documents read and update
        admin: tokens.admin, // not a member; every permission
        outsider: await t.login(`nina-${kind}`),
      };
      const created = await create(as.owner, basics(team), fileOf('plan.txt', 'the plan'));
      if (created.status !== 201) throw new Error(`setup upload failed: ${created.status}`);
      documentId = created.body.document.id;
    });

    const table: [string, Record<Who, number>, (token: string) => Promise<number>][] = [
      [
        'POST /api/documents',
        { owner: 201, viewer: 403, other: 201, manager: 201, editor: 404, admin: 201, outsider: 404 },
        async (token) => (await create(token, basics(team), fileOf('new.txt', 'new'))).status,
      ],
      [
        'GET /api/documents/{id}',
        { owner: 200, viewer: 200, other: 200, manager: 200, editor: 200, admin: 200, outsider: 404 },
        async (token) => (await get(`/api/documents/${documentId}`, token)).status,
      ],
      [
        'GET /api/documents/{id}/content',
        { owner: 200, viewer: 200, other: 200, manager: 200, editor: 200, admin: 200, outsider: 404 },
        async (token) => (await get(`/api/documents/${documentId}/content`, token)).status,
      ],
      [
        'HEAD /api/documents/{id}/content',
        { owner: 200, viewer: 200, other: 200, manager: 200, editor: 200, admin: 200, outsider: 404 },
        async (token) =>
          (await fetch(url(`/api/documents/${documentId}/content`), { method: 'HEAD', headers: auth(token) })).status,
      ],
      [
        'GET /api/documents/{id}/versions',
        { owner: 200, viewer: 200, other: 200, manager: 200, editor: 200, admin: 200, outsider: 404 },
        async (token) => (await get(`/api/documents/${documentId}/versions`, token)).status,
      ],
      [
        'POST /api/documents/{id}/versions',
        { owner: 201, viewer: 403, other: 403, manager: 201, editor: 201, admin: 201, outsider: 404 },
        async (token) => (await addVersion(documentId, token, [fileOf('next.txt', `next ${token.slice(-8)}`)])).status,
      ],
    ];

    it.each(table)('%s answers each kind of caller as the policy says', async (_route, expected, call) => {
      const actual = {} as Record<Who, number>;
      for (const caller of who) actual[caller] = await call(as[caller]);
      expect(actual).toEqual(expected);
    });

    it('answers 404 project_not_found to an unknown project and to one the caller cannot see', async () => {
      const unknown = await create(as.owner, basics('00000000-0000-4000-8000-000000000000'), fileOf('x.txt', 'x'));
      expectError(unknown, 404, 'project_not_found');
      const invisible = await create(as.outsider, basics(team), fileOf('x.txt', 'x'));
      expectError(invisible, 404, 'project_not_found');
      const viewer = await create(as.viewer, basics(team), fileOf('x.txt', 'x'));
      expectError(viewer, 403, 'forbidden');
    });

    it('answers 401 without a token on every route', async () => {
      const responses = [
        await sendMultipart(url('/api/documents'), undefined, [...basics(team), fileOf('x.txt', 'x')]),
        await sendMultipart(url(`/api/documents/${documentId}/versions`), undefined, [fileOf('x.txt', 'x')]),
      ];
      for (const response of responses) expect(response.status).toBe(401);
      for (const path of ['', '/content', '/versions']) {
        expect((await fetch(url(`/api/documents/${documentId}${path}`))).status).toBe(401);
      }
    });
  });
});
