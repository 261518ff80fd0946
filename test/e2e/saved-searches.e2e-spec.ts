// Saved searches: CRUD as their owner's alone, running through the document list, and alerts:
// one search.matched per newly matching document, none while it keeps matching, none about a
// document the owner cannot read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { apiCaller, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

describe.each(databasesUnderTest())('saved searches on %s', (kind) => {
  let t: TestApp;
  let call: ReturnType<typeof apiCaller>;
  let projectId: string;
  let hiddenProjectId: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(kind);
    projectId = await addProject(t, 'Searched');
    hiddenProjectId = await addProject(t, 'Hidden');
    await addUser(t, 'oscar', { [projectId]: 'viewer' });
    await addUser(t, 'carl', { [projectId]: 'contributor', [hiddenProjectId]: 'contributor' });
    for (const name of ['oscar', 'carl']) tokens[name] = await t.login(name);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
  });

  async function upload(project: string, title: string): Promise<string> {
    const answer = await sendMultipart(`${t.url}/api/documents`, tokens.carl, [
      { name: 'title', value: title },
      { name: 'projectId', value: project },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'file.txt', bytes: title, type: 'text/plain' },
    ]);
    expect(answer.status).toBe(201);
    return answer.body.document.id as string;
  }

  const rename = async (documentId: string, title: string) =>
    expect((await call('carl', 'PUT', `/api/documents/${documentId}`, { title })).status).toBe(200);

  /** Waits until every consumer has handled every event, then answers oscar's search.matched notifications. */
  async function alerts(): Promise<{ documentId: string; subject: string }[]> {
    await waitFor(async () => {
      const [row] = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM outbox_events WHERE searchesMatchedAt IS NULL OR dispatchedAt IS NULL',
      );
      return Number(row.n) === 0;
    }, 'every event matched and dispatched');
    const list = await call('oscar', 'GET', '/api/notifications?type=in_app&limit=100');
    return (list.body.notifications as any[]).filter((n) => n.event === 'search.matched');
  }

  it("creates, lists, reads, changes and deletes one's own saved searches, audited", async () => {
    const created = await call('oscar', 'POST', '/api/saved-searches', {
      name: 'Reviews',
      filters: { status: 'in_review', tags: 'legal' },
      alert: false,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Reviews', q: null, filters: { status: 'in_review', tags: 'legal' } });
    const id = created.body.id as string;
    expect((await call('oscar', 'GET', '/api/saved-searches')).body.savedSearches.map((s: any) => s.id)).toContain(id);
    expectError(await call('carl', 'GET', `/api/saved-searches/${id}`), 404, 'saved_search_not_found');
    const patched = await call('oscar', 'PATCH', `/api/saved-searches/${id}`, { name: 'Legal reviews' });
    expect(patched.body.name).toBe('Legal reviews');
    expectError(
      await call('oscar', 'POST', '/api/saved-searches', { name: 'Bad', filters: { status: 'lost' }, alert: true }),
      400,
      'validation_failed',
    );
    expect((await call('oscar', 'DELETE', `/api/saved-searches/${id}`)).status).toBe(204);
    expectError(await call('oscar', 'GET', `/api/saved-searches/${id}`), 404, 'saved_search_not_found');
    const actions = await t.dataSource.query<{ action: string }[]>(
      'SELECT action FROM audit_events WHERE targetId = ? ORDER BY at, id',
      [id],
    );
    expect(actions.map((row) => row.action)).toEqual([
      'saved_search.created',
      'saved_search.updated',
      'saved_search.deleted',
    ]);
  });

  it('runs a saved search through the document list', async () => {
    const documentId = await upload(projectId, 'Quarterly budget plan');
    await upload(projectId, 'Holiday schedule');
    const created = await call('oscar', 'POST', '/api/saved-searches', {
      name: 'Budgets',
      q: 'budget',
      filters: { projectId },
      alert: false,
    });
    const run = await call('oscar', 'GET', `/api/saved-searches/${created.body.id}/documents?limit=10`);
    expect(run.status).toBe(200);
    expect(run.body.documents.map((d: any) => d.id)).toEqual([documentId]);
    expect(run.body.pagination.total).toBe(1);
  });

  it('alerts once per newly matching document, and never about one its owner cannot read', async () => {
    const search = await call('oscar', 'POST', '/api/saved-searches', {
      name: 'Invoices',
      q: 'invoice',
      alert: true,
    });
    expect(search.status).toBe(201);
    const plain = await call('oscar', 'POST', '/api/saved-searches', {
      name: 'Searched project',
      filters: { projectId, tags: 'urgent' },
      alert: true,
    });
    expect(plain.status).toBe(201);
    const before = (await alerts()).length;

    const invoice = await upload(projectId, 'Invoice March');
    const hidden = await upload(hiddenProjectId, 'Invoice for the hidden project');
    let found = (await alerts()).slice(0, -before || undefined);
    expect(found.map((n) => n.documentId)).toEqual([invoice]);
    expect(found[0].subject).toContain('Invoices');

    // Still matching: no second alert.
    await rename(invoice, 'Invoice March corrected');
    expect((await alerts()).length).toBe(before + 1);
    // Stops matching, then matches again: a new alert.
    await rename(invoice, 'Receipt March');
    expect((await alerts()).length).toBe(before + 1);
    await rename(invoice, 'Invoice March final');
    found = await alerts();
    expect(found.length).toBe(before + 2);

    // The tag filter: the document matches once it carries the tag.
    const report = await upload(projectId, 'Status report');
    expect((await alerts()).length).toBe(before + 2);
    expect((await call('carl', 'PUT', `/api/documents/${report}`, { tags: ['urgent'] })).status).toBe(200);
    found = await alerts();
    expect(found.length).toBe(before + 3);
    expect(found[0].documentId).toBe(report);
    expect(found.some((n) => n.documentId === hidden)).toBe(false);
  });
});
