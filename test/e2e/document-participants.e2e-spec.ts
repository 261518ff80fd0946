import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { addProject, addUser } from '../support/document-fixtures.js';
import { undispatchedEvents, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

/** Who hears of a document's changes: its participants who may still read it (issue 30 #3, #4). */
describe.each(databasesUnderTest())('document participants on %s', (kind) => {
  let t: TestApp;
  let projectId: string;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  const put = (token: string, documentId: string, body: unknown) =>
    fetch(`${t.url}/api/documents/${documentId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const participantRows = async (documentId: string) =>
    (
      await t.dataSource.query<{ userId: string }[]>(
        'SELECT userId FROM document_participants WHERE documentId = ? ORDER BY userId',
        [documentId],
      )
    ).map((row) => row.userId);
  const notifiedAbout = async (userId: string, documentId: string) =>
    (
      await t.dataSource.query<{ event: string }[]>(
        'SELECT event FROM notifications WHERE userId = ? AND documentId = ? ORDER BY createdAt',
        [userId, documentId],
      )
    ).map((row) => row.event);
  const dispatched = () => waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the dispatcher');

  beforeAll(async () => {
    t = await createTestApp(kind);
    projectId = await addProject(t, 'Participants');
    ids.pam = await addUser(t, 'pam', { [projectId]: 'manager' });
    ids.carl = await addUser(t, 'carl', { [projectId]: 'manager' });
    ids.dora = await addUser(t, 'dora', { [projectId]: 'viewer' });
    for (const name of ['pam', 'carl']) tokens[name] = await t.login(name);
  });

  afterAll(async () => {
    await t?.close();
  });

  async function createDocument(): Promise<string> {
    const created = await sendMultipart(`${t.url}/api/documents`, tokens.pam, [
      { name: 'projectId', value: projectId },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'plan.txt', bytes: 'the plan\n', type: 'text/plain' },
    ]);
    expect(created.status).toBe(201);
    return created.body.document.id as string;
  }

  it('stores the uploader and every editor as one row each, written with the change', async () => {
    const documentId = await createDocument();
    expect(await participantRows(documentId)).toEqual([ids.pam]);
    expect((await put(tokens.carl, documentId, { title: 'Carl was here' })).status).toBe(200);
    expect((await put(tokens.carl, documentId, { title: 'Carl again' })).status).toBe(200);
    expect(await participantRows(documentId)).toEqual([ids.pam, ids.carl].toSorted());
  });

  it('notifies a participant of later changes while they may read the document', async () => {
    const documentId = await createDocument();
    expect((await put(tokens.carl, documentId, { title: 'Edited by carl' })).status).toBe(200);
    expect((await put(tokens.pam, documentId, { title: 'Edited by pam' })).status).toBe(200);
    await dispatched();
    expect(await notifiedAbout(ids.carl, documentId)).toContain('document.updated');
  });

  it('no longer notifies a participant removed from the project (carl hears nothing)', async () => {
    const documentId = await createDocument();
    expect((await put(tokens.carl, documentId, { title: 'Edited by carl' })).status).toBe(200);
    await dispatched();
    const before = await notifiedAbout(ids.carl, documentId);
    await t.dataSource.query('DELETE FROM project_members WHERE projectId = ? AND userId = ?', [projectId, ids.carl]);
    expect((await put(tokens.pam, documentId, { title: 'Edited after carl left' })).status).toBe(200);
    await dispatched();
    expect(await notifiedAbout(ids.carl, documentId)).toEqual(before);
    // Members who never took part hear of its creation only.
    expect(await notifiedAbout(ids.dora, documentId)).toEqual(['document.created']);
  });
});
