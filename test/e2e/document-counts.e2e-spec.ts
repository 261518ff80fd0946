// The list's totals come from document_counts: they must stay exactly the documents' own counts
// through every write that moves them, including races.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentTrashService } from '../../src/documents/document-trash.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument, addProject, addUser, changeDocument, moveDocument } from '../support/document-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

type CountRow = {
  projectId: string;
  uploadedBy: string;
  status: string;
  documentTypeId: string;
  total: number | string;
};

describe.each(databasesUnderTest())('document counts on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  let ares: string;
  let iris: string;
  let kimId: string;

  /** document_counts' non-zero rows, and the same computed from the documents themselves. */
  const counts = async () => {
    const normalise = (rows: CountRow[]) =>
      rows
        .map((row) => ({ ...row, total: Number(row.total) }))
        .filter((row) => row.total !== 0)
        .map((row) => JSON.stringify([row.projectId, row.uploadedBy, row.status, row.documentTypeId, row.total]))
        .sort();
    const kept = await t.dataSource.query<CountRow[]>(
      'SELECT projectId, uploadedBy, status, documentTypeId, total FROM document_counts',
    );
    const live = 'FROM documents WHERE deletedAt IS NULL';
    const actual = await t.dataSource.query<CountRow[]>(
      `SELECT projectId, '' AS uploadedBy, status, documentTypeId, COUNT(*) AS total ${live} GROUP BY projectId, status, documentTypeId
       UNION ALL
       SELECT projectId, '', '', '', COUNT(*) AS total ${live} GROUP BY projectId
       UNION ALL
       SELECT projectId, uploadedBy, status, documentTypeId, COUNT(*) AS total ${live} GROUP BY projectId, uploadedBy, status, documentTypeId
       UNION ALL
       SELECT projectId, uploadedBy, '', '', COUNT(*) AS total ${live} GROUP BY projectId, uploadedBy`,
    );
    return { kept: normalise(kept), actual: normalise(actual) };
  };
  const expectExact = async () => {
    const { kept, actual } = await counts();
    expect(kept).toEqual(actual);
  };
  const call = async (
    method: string,
    path: string,
    who: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, any> | null }> => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: response.status === 204 ? null : ((await response.json()) as Record<string, any>),
    };
  };
  const total = async (who: string, query = '') => {
    const response = await call('GET', `/api/documents?limit=1${query}`, who);
    expect(response.status).toBe(200);
    expect(response.body!.pagination.totalIsExact).toBe(true);
    return response.body!.pagination.total as number;
  };
  const upload = (who: string, projectId: string, title: string) =>
    sendMultipart(`${t.url}/api/documents`, tokens[who], [
      { name: 'title', value: title },
      { name: 'projectId', value: projectId },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: `${title}.txt`, bytes: title, type: 'text/plain' },
    ]);

  beforeAll(async () => {
    t = await createTestApp(kind);
    ares = await addProject(t, 'Ares');
    iris = await addProject(t, 'Iris');
    kimId = await addUser(t, 'kim', { [ares]: 'manager' });
    await addUser(t, 'lou', { [iris]: 'contributor' });
    for (const name of ['kim', 'lou', 'admin']) tokens[name] = await t.login(name);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('are exact after the seed and the fixtures', async () => {
    await addDocument(t, { projectId: ares, uploadedBy: kimId, title: 'fixture' });
    await expectExact();
  });

  it('stay exact through concurrent uploads, and the list total follows', async () => {
    const before = await total('kim');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => upload('kim', ares, `parallel ${n}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(201));
    await expectExact();
    expect(await total('kim')).toBe(before + 12);
    expect(await total('kim', `&projectId=${ares}&status=draft`)).toBe(await total('kim', `&projectId=${ares}`));
  });

  it('stay exact through trash and restore racing each other, and status changes', async () => {
    const ids = (await call('GET', `/api/documents?limit=6&projectId=${ares}`, 'kim')).body!.documents.map(
      (document: { id: string }) => document.id,
    );
    const before = await total('kim');
    await Promise.all(ids.map((id: string) => call('DELETE', `/api/documents/${id}`, 'kim')));
    await expectExact();
    expect(await total('kim')).toBe(before - ids.length);
    // Each restore races a second delete of the same document: whichever lands, the counts follow it.
    const raced = await Promise.all(
      ids.flatMap((id: string) => [
        call('POST', `/api/documents/${id}/restore`, 'kim'),
        call('POST', `/api/documents/${id}/restore`, 'kim'),
      ]),
    );
    // One restore of each pair lands; the other finds it live already (404) or lost the race (409).
    expect(raced.filter((answer) => answer.status === 200)).toHaveLength(ids.length);
    expect(raced.every((answer) => [200, 404, 409].includes(answer.status))).toBe(true);
    await expectExact();
    expect(await total('kim')).toBe(before);
    await Promise.all([
      ...ids
        .slice(0, 3)
        .map((id: string) => call('POST', `/api/documents/${id}/status`, 'kim', { status: 'in_review' })),
      ...ids.slice(3).map((id: string) => call('DELETE', `/api/documents/${id}`, 'kim')),
    ]);
    await expectExact();
    expect(await total('kim', '&status=in_review')).toBe(3);
    const [used, unused] = t.seed.documentTypes.map((type) => type.id);
    expect(await total('kim', `&status=in_review&documentTypeId=${used}`)).toBe(3);
    expect(await total('kim', `&documentTypeId=${used}`)).toBe(await total('kim', `&projectId=${ares}`));
    expect(await total('kim', `&documentTypeId=${unused}`)).toBe(0);
  });

  it('stay exact when a document moves between projects, and the uploader still sees it elsewhere', async () => {
    const id = await addDocument(t, { projectId: ares, uploadedBy: kimId, title: 'wanderer' });
    const kimBefore = await total('kim');
    const louBefore = await total('lou');
    await moveDocument(t, id, iris);
    await expectExact();
    // Kim uploaded it: it stays visible to her, now outside her projects.
    expect(await total('kim')).toBe(kimBefore);
    expect(await total('kim', `&projectId=${iris}`)).toBe(1);
    expect(await total('lou')).toBe(louBefore + 1);
  });

  it('stay exact through moves and type changes racing uploads, and the list shows uploads outside the projects', async () => {
    const listed = async (query: string) =>
      ((await call('GET', `/api/documents?limit=100${query}`, 'kim')).body!.documents as { id: string }[])
        .map((document) => document.id)
        .sort();
    const ids: string[] = [];
    for (let n = 0; n < 4; n++)
      ids.push(await addDocument(t, { projectId: ares, uploadedBy: kimId, title: `rover ${n}` }));
    const kimBefore = await total('kim');
    const louBefore = await total('lou', `&uploadedBy=${kimId}`);
    const irisBefore = await listed(`&projectId=${iris}`);
    const [used, other] = t.seed.documentTypes.map((type) => type.id);
    const answers = await Promise.all([
      ...ids.slice(0, 3).map((id) => moveDocument(t, id, iris).then(() => 0)),
      changeDocument(t, ids[3], { documentTypeId: other }).then(() => 0),
      ...Array.from({ length: 4 }, (_, n) => upload('kim', ares, `racer ${n}`).then((answer) => answer.status)),
    ]);
    expect(answers.slice(4)).toEqual(Array(4).fill(201));
    await expectExact();
    expect(await total('kim')).toBe(kimBefore + 4);
    expect(await total('kim', `&documentTypeId=${other}`)).toBe(1);
    // Kim is not a member of Iris: her uploads there are read through the uploads-elsewhere part.
    expect(await listed('')).toEqual(expect.arrayContaining(ids));
    expect(await listed(`&projectId=${iris}`)).toEqual([...irisBefore, ...ids.slice(0, 3)].sort());
    expect(await total('kim', `&projectId=${iris}&documentTypeId=${used}`)).toBe(irisBefore.length + 3);
    expect(await total('lou', `&uploadedBy=${kimId}`)).toBe(louBefore + 3);
    // Moved back, or trashed while outside: either leaves the uploads-elsewhere part.
    await moveDocument(t, ids[0], ares);
    expect((await call('DELETE', `/api/documents/${ids[1]}`, 'admin')).status).toBe(204);
    await expectExact();
    expect(await total('kim')).toBe(kimBefore + 3);
    expect(await listed(`&projectId=${iris}`)).toEqual([...irisBefore, ids[2]].sort());
  });

  it('stay exact through permanent deletes and the trash purge', async () => {
    const live = await addDocument(t, { projectId: ares, uploadedBy: kimId, title: 'to shred' });
    const longAgo = new Date(Date.now() - 400 * 86_400_000);
    await addDocument(t, {
      projectId: ares,
      uploadedBy: kimId,
      title: 'old trash',
      updatedAt: longAgo,
      deletedAt: longAgo,
      deletedBy: kimId,
    });
    const before = await total('kim');
    expect((await call('DELETE', `/api/documents/${live}?permanent=true`, 'admin')).status).toBe(204);
    await t.app.get(DocumentTrashService).purgeExpired();
    await expectExact();
    expect(await total('kim')).toBe(before - 1);
    const { actual } = await counts();
    expect(await total('admin')).toBe(
      actual
        .map((row) => JSON.parse(row) as unknown[])
        .filter((row) => row[1] === '' && row[2] === '')
        .reduce((sum, row) => sum + Number(row[4]), 0),
    );
  });
});
