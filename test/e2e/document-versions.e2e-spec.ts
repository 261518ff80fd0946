import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentHistory } from '../../src/documents/entities/document-history.entity.js';
import { DocumentVersion } from '../../src/documents/entities/document-version.entity.js';
import { OutboxEvent } from '../../src/events/entities/outbox-event.entity.js';
import { DocumentFilesSuite } from '../support/document-files-suite.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { addPlainUser, addProject, sendMultipart, storeContents } from '../support/uploads.js';
import { expectError } from '../support/expect-error.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe.each(storageSetupsUnderTest())(
  'document versions and file permissions on $kind, $driver driver',
  ({ kind, driver }) => {
    const suite = new DocumentFilesSuite(kind, driver);
    const { url, auth, get, create, fileOf, basics, addVersion } = suite;

    describe('versions', () => {
      let id: string;
      const v1 = Buffer.from('first draft\n');
      const v2 = Buffer.from('second draft, countersigned\n');

      beforeAll(async () => {
        const response = await create(suite.tokens.alice, basics(), fileOf('contract.txt', v1, 'text/plain'));
        id = response.body.document.id;
      });

      it('answers 412 with the current ETag to a stale If-Match, and changes nothing', async () => {
        const before = await storeContents(suite.t);
        const response = await addVersion(id, suite.tokens.alice, [fileOf('contract-v2.txt', v2)], {
          'if-match': '"v0"',
        });
        expectError(response, 412, 'precondition_failed');
        expect(response.headers.get('etag')).toBe('"v1"');
        expect(await suite.t.dataSource.getRepository(DocumentVersion).countBy({ documentId: id })).toBe(1);
        expect(await storeContents(suite.t)).toEqual(before);
      });

      it('adds version 2 with its comment, moving the document to the new file', async () => {
        const response = await addVersion(
          id,
          suite.tokens.alice,
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
        const current = await get(`/api/documents/${id}/content`, suite.tokens.bob);
        expect(await current.text()).toBe(v2.toString());
        const first = await get(`/api/documents/${id}/content?version=1`, suite.tokens.bob);
        expect(await first.text()).toBe(v1.toString());
        const history = await suite.t.dataSource.getRepository(DocumentHistory).findBy({ documentId: id });
        expect(history.map((entry) => entry.action).sort()).toEqual(['created', 'version_added']);
        const events = await suite.t.dataSource.getRepository(OutboxEvent).findBy({ documentId: id });
        expect(events.map((event) => event.type).sort()).toEqual(['document.created', 'document.version_added']);
      });

      it('lists the versions newest first with page and limit', async () => {
        const third = await addVersion(id, suite.tokens.admin, [fileOf('contract-v3.txt', 'third')]);
        expect(third.status).toBe(201);
        expect(third.body.document.currentVersion).toBe(3);
        const response = await get(`/api/documents/${id}/versions`, suite.tokens.bob);
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
          uploadedBy: suite.t.user('alice').id,
          createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        });
        expect(body.versions[0].uploadedBy).toBe(suite.t.user('admin').id);
        expect(body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1, nextCursor: null });
        const page2 = (await (await get(`/api/documents/${id}/versions?page=2&limit=2`, suite.tokens.bob)).json()) as {
          versions: { version: number }[];
          pagination: unknown;
        };
        expect(page2.versions.map((version) => version.version)).toEqual([1]);
        expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null });
        for (const query of ['limit=0', 'limit=101', 'page=0', 'cursor=x', 'page=1&page=2']) {
          expect((await get(`/api/documents/${id}/versions?${query}`, suite.tokens.bob)).status).toBe(400);
        }
      });

      it('refuses a comment over 1,000 characters, and an archived document with 409 document_archived', async () => {
        const long = await addVersion(id, suite.tokens.alice, [
          { name: 'comment', value: 'x'.repeat(1001) },
          fileOf('a.txt', 'a'),
        ]);
        expectError(long, 400, 'validation_failed');
        expect(long.body.details).toMatch(/comment/);
        const unknown = await addVersion(id, suite.tokens.alice, [{ name: 'title', value: 'x' }, fileOf('a.txt', 'a')]);
        expectError(unknown, 400, 'validation_failed');
        await suite.t.dataSource.query("UPDATE documents SET status = 'archived' WHERE id = ?", [id]);
        try {
          const archived = await addVersion(id, suite.tokens.alice, [fileOf('a.txt', 'a')]);
          expectError(archived, 409, 'document_archived');
        } finally {
          await suite.t.dataSource.query("UPDATE documents SET status = 'draft' WHERE id = ?", [id]);
        }
        expect(await suite.t.dataSource.getRepository(DocumentVersion).countBy({ documentId: id })).toBe(3);
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
          ids[name] = await addPlainUser(suite.t, `${name}-${kind}`);
        team = await addProject(suite.t, `Team ${kind}`, {
          [ids.owen]: 'contributor',
          [ids.vera]: 'viewer',
          [ids.oscar]: 'contributor',
          [ids.mona]: 'manager',
        });
        as = {
          owner: await suite.t.login(`owen-${kind}`),
          viewer: await suite.t.login(`vera-${kind}`),
          other: await suite.t.login(`oscar-${kind}`),
          manager: await suite.t.login(`mona-${kind}`),
          editor: suite.tokens.erin, // not a member; role editor: documents read and update
          admin: suite.tokens.admin, // not a member; every permission
          outsider: await suite.t.login(`nina-${kind}`),
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
          async (token) =>
            (await addVersion(documentId, token, [fileOf('next.txt', `next ${token.slice(-8)}`)])).status,
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
  },
);
