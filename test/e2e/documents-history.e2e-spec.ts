import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { documentUpdateSuite, ISO_UTC, type DocumentUpdateState } from '../support/document-fixtures.js';
import { expectError } from '../support/expect-error.js';

/** Every error, whatever the layer, is exactly {error, details} with two strings. */

describe.each(databasesUnderTest())('document history and persistence on %s', (kind) => {
  const { state, api, put, history, row, asJson } = documentUpdateSuite(kind);
  let t: DocumentUpdateState['t'];
  let tokens: DocumentUpdateState['tokens'];
  let docs: DocumentUpdateState['docs'];
  beforeAll(() => {
    ({ t, tokens, docs } = state);
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
