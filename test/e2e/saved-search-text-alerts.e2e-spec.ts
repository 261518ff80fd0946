// Saved-search alerts on q: a document alerts a search exactly when the search, run through the
// document list by its owner, shows it (a word, a phrase, a prefix, an accent the index folds), never
// for an owner who cannot read it; one that stops matching loses its match and alerts again later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

describe.each(databasesUnderTest())('saved-search alerts on q on %s', (kind) => {
  let t: TestApp;
  let call: ReturnType<typeof apiCaller>;
  let projectId: string;
  const tokens: Record<string, string> = {};
  const searches: Record<string, { id: string; owner: string }> = {};

  beforeAll(async () => {
    t = await createTestApp(kind);
    projectId = await addProject(t, 'Texts');
    const elsewhere = await addProject(t, 'Elsewhere');
    await addUser(t, 'olga', { [projectId]: 'viewer' });
    await addUser(t, 'nils', { [elsewhere]: 'viewer' });
    await addUser(t, 'cora', { [projectId]: 'contributor' });
    for (const name of ['olga', 'nils', 'cora']) tokens[name] = await t.login(name);
    call = apiCaller(t, tokens);
    const save = async (name: string, owner: string, q: string) => {
      const created = await call(owner, 'POST', '/api/saved-searches', { name, q, alert: true });
      expect(created.status).toBe(201);
      searches[name] = { id: created.body.id as string, owner };
    };
    await save('word', 'olga', 'budget');
    await save('phrase', 'olga', '"supplier contract"');
    await save('prefix', 'olga', 'quarterly repo');
    await save('accent', 'olga', 'cafe');
    await save('unreadable', 'nils', 'budget');
  });

  afterAll(async () => {
    await t?.close();
  });

  async function upload(title: string): Promise<string> {
    const answer = await sendMultipart(`${t.url}/api/documents`, tokens.cora, [
      { name: 'title', value: title },
      { name: 'projectId', value: projectId },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'file.txt', bytes: 'no words of interest', type: 'text/plain' },
    ]);
    expect(answer.status).toBe(201);
    return answer.body.document.id as string;
  }

  /** After every event is matched: each search's alerted documents (search.matched events) and current matches. */
  async function state(name: string): Promise<{ alerted: string[]; matches: string[] }> {
    await waitFor(async () => {
      const [row] = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM outbox_events WHERE searchesMatchedAt IS NULL',
      );
      return Number(row.n) === 0;
    }, 'every event matched');
    const events = await t.dataSource.query<{ documentId: string; payload: unknown }[]>(
      "SELECT documentId, payload FROM outbox_events WHERE type = 'search.matched' ORDER BY createdAt, id",
    );
    const alerted = events
      .filter((event) => {
        const payload = typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload;
        return (payload as { savedSearchId: string }).savedSearchId === searches[name].id;
      })
      .map((event) => event.documentId);
    const rows = await t.dataSource.query<{ documentId: string }[]>(
      'SELECT documentId FROM saved_search_matches WHERE savedSearchId = ? ORDER BY documentId',
      [searches[name].id],
    );
    return { alerted, matches: rows.map((row) => row.documentId) };
  }

  /** The documents the search shows its owner when run through the list. */
  async function listed(name: string): Promise<string[]> {
    const { id, owner } = searches[name];
    const run = await call(owner, 'GET', `/api/saved-searches/${id}/documents?limit=100`);
    expect(run.status).toBe(200);
    return (run.body.documents as { id: string }[]).map((document) => document.id).sort();
  }

  it('alerts each q search for exactly the documents its list shows the owner', async () => {
    const budget = await upload('Budget 2026');
    const contract = await upload('Supplier contract signed');
    const reversed = await upload('Contract with the supplier');
    const report = await upload('Quarterly report');
    const cafe = await upload('Café menu');

    expect((await state('word')).alerted).toEqual([budget]);
    expect((await state('phrase')).alerted).toEqual([contract]);
    expect((await state('prefix')).alerted).toEqual([report]);
    expect((await state('unreadable')).alerted).toEqual([]);
    expect((await state('unreadable')).matches).toEqual([]);
    expect(await listed('phrase')).not.toContain(reversed);
    for (const name of ['word', 'phrase', 'prefix', 'accent', 'unreadable']) {
      const { alerted, matches } = await state(name);
      expect(alerted.toSorted(), name).toEqual(await listed(name));
      expect(matches, name).toEqual(await listed(name));
    }
    // Whatever the database's folding, the alert follows the list; both fold "é" today.
    expect((await state('accent')).alerted).toEqual([cafe]);
  });

  it('drops the match of a document that stops matching, and alerts again when it matches again', async () => {
    const document = await upload('Budget for travel');
    expect((await state('word')).matches).toContain(document);
    const rename = async (title: string) =>
      expect((await call('cora', 'PUT', `/api/documents/${document}`, { title })).status).toBe(200);

    await rename('Travel plan');
    let word = await state('word');
    expect(word.matches).not.toContain(document);
    expect(word.alerted.filter((id) => id === document)).toHaveLength(1);

    await rename('Travel budget');
    word = await state('word');
    expect(word.matches).toContain(document);
    expect(word.alerted.filter((id) => id === document)).toHaveLength(2);
    expect((await state('unreadable')).alerted).toEqual([]);
  });
});
