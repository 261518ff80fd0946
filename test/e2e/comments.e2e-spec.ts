import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';
import { expectError } from '../support/expect-error.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

describe.each(databasesUnderTest())('comments on documents on %s', (kind) => {
  let t: TestApp;
  let documentId: string;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  async function call(method: string, path: string, who: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
  }

  const inAppOf = async (who: string, event: string) =>
    ((await call('GET', '/api/notifications?type=in_app&limit=100', who)).body.notifications as any[]).filter(
      (notification) => notification.event === event && notification.documentId === documentId,
    );

  beforeAll(async () => {
    t = await createTestApp(kind);
    const project = await addProject(t, 'Comments');
    // carol contributes, vera views, mara manages, erin edits (documents:update, not a member), nina is outside.
    for (const [name, role] of [
      ['carol', 'contributor'],
      ['vera', 'viewer'],
      ['mara', 'manager'],
      ['dana', 'contributor'],
    ] as const) {
      ids[name] = await addUser(t, name, { [project]: role });
    }
    ids.nina = await addUser(t, 'nina');
    ids.erin = t.user('erin').id;
    for (const name of ['carol', 'vera', 'mara', 'dana', 'nina', 'erin', 'admin']) tokens[name] = await t.login(name);
    const upload = await sendMultipart(`${t.url}/api/documents`, tokens.carol, [
      { name: 'title', value: 'Supplier contract' },
      { name: 'projectId', value: project },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'contract.txt', bytes: 'terms', type: 'text/plain' },
    ]);
    if (upload.status !== 201) throw new Error(`upload answered ${upload.status}`);
    documentId = upload.body.document.id;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates a comment: 201, Location, the author and the body; readers list it oldest first', async () => {
    const created = await call('POST', `/api/documents/${documentId}/comments`, 'mara', { body: 'First remark' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/comments/${created.body.id}`);
    expect(created.body).toMatchObject({
      documentId,
      author: { id: ids.mara, username: 'mara', firstName: 'mara', lastName: 'Test' },
      body: 'First remark',
      editedAt: null,
    });
    const second = await call('POST', `/api/documents/${documentId}/comments`, 'carol', { body: 'Second' });
    expect(second.status).toBe(201);
    const listed = await call('GET', `/api/documents/${documentId}/comments`, 'vera');
    expect(listed.status).toBe(200);
    expect(listed.body.comments.map((comment: { body: string }) => comment.body)).toEqual(['First remark', 'Second']);
    expect(listed.body.total).toBeGreaterThanOrEqual(2);
  });

  it('pages with a cursor, oldest first, without repeats', async () => {
    for (let index = 0; index < 5; index++) {
      expect(
        (await call('POST', `/api/documents/${documentId}/comments`, 'dana', { body: `page ${index}` })).status,
      ).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = await call('GET', `/api/documents/${documentId}/comments${query}`, 'carol');
      expect(page.status).toBe(200);
      expect(page.body.comments.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.comments.map((comment: { id: string }) => comment.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await call('GET', `/api/documents/${documentId}/comments?limit=100`, 'carol');
    expect(seen).toEqual(all.body.comments.map((comment: { id: string }) => comment.id));
    expect(new Set(seen).size).toBe(seen.length);
    expectError(
      await call('GET', `/api/documents/${documentId}/comments?cursor=nonsense!`, 'carol'),
      400,
      'validation_failed',
    );
  });

  it('lets readers who may contribute comment: viewers 403, outsiders 404, editors 201', async () => {
    expectError(await call('POST', `/api/documents/${documentId}/comments`, 'vera', { body: 'hi' }), 403, 'forbidden');
    expectError(
      await call('POST', `/api/documents/${documentId}/comments`, 'nina', { body: 'hi' }),
      404,
      'document_not_found',
    );
    expectError(await call('GET', `/api/documents/${documentId}/comments`, 'nina'), 404, 'document_not_found');
    expect((await call('POST', `/api/documents/${documentId}/comments`, 'erin', { body: 'editor here' })).status).toBe(
      201,
    );
  });

  it('refuses bad bodies with 400 and stores nothing', async () => {
    const before = (await call('GET', `/api/documents/${documentId}/comments?limit=100`, 'carol')).body.total;
    for (const body of [
      {},
      { body: '' },
      { body: 'x'.repeat(10_001) },
      { body: 7 },
      { body: 'ok', extra: 1 },
      { body: 'a\u0000b' },
    ]) {
      expectError(await call('POST', `/api/documents/${documentId}/comments`, 'carol', body), 400, 'validation_failed');
    }
    expect(
      (await call('POST', `/api/documents/${documentId}/comments`, 'carol', { body: '😀'.repeat(10_000) })).status,
    ).toBe(201);
    expect((await call('GET', `/api/documents/${documentId}/comments?limit=100`, 'carol')).body.total).toBe(before + 1);
  });

  it('edits: the author only, setting editedAt', async () => {
    const created = await call('POST', `/api/documents/${documentId}/comments`, 'carol', { body: 'draft wording' });
    const path = `/api/comments/${created.body.id}`;
    expectError(await call('PATCH', path, 'mara', { body: 'manager rewrite' }), 403, 'forbidden');
    expectError(await call('PATCH', path, 'nina', { body: 'outsider' }), 404, 'comment_not_found');
    const edited = await call('PATCH', path, 'carol', { body: 'final wording' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: created.body.id, body: 'final wording' });
    expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));
  });

  it('deletes: author, project manager or documents:delete; others 403; then gone from the list', async () => {
    const make = async () =>
      (await call('POST', `/api/documents/${documentId}/comments`, 'dana', { body: 'to delete' })).body.id as string;
    const [byAuthor, byManager, byAdmin, refused] = [await make(), await make(), await make(), await make()];
    expectError(await call('DELETE', `/api/comments/${refused}`, 'carol'), 403, 'forbidden');
    expectError(await call('DELETE', `/api/comments/${refused}`, 'vera'), 403, 'forbidden');
    expectError(await call('DELETE', `/api/comments/${refused}`, 'nina'), 404, 'comment_not_found');
    expect((await call('DELETE', `/api/comments/${byAuthor}`, 'dana')).status).toBe(204);
    expect((await call('DELETE', `/api/comments/${byManager}`, 'mara')).status).toBe(204);
    expect((await call('DELETE', `/api/comments/${byAdmin}`, 'admin')).status).toBe(204);
    expectError(await call('DELETE', `/api/comments/${byAuthor}`, 'dana'), 404, 'comment_not_found');
    const listed = await call('GET', `/api/documents/${documentId}/comments?limit=100`, 'dana');
    const remaining = listed.body.comments.map((comment: { id: string }) => comment.id);
    expect(remaining).toContain(refused);
    expect(remaining).not.toContain(byAuthor);
  });

  it('notifies mentioned readers (comment.mentioned) and other participants (comment.created), never the author', async () => {
    const body = `@vera and @Nina, please look; @dana too. @nobody-here`;
    expect((await call('POST', `/api/documents/${documentId}/comments`, 'mara', { body })).status).toBe(201);
    const mention = await waitFor(async () => (await inAppOf('vera', 'comment.mentioned'))[0], 'vera mention');
    expect(mention.subject).toContain('Supplier contract');
    expect(mention.message).toContain('please look');
    // carol uploaded the document: a participant, told of the comment but not mentioned.
    await waitFor(async () => (await inAppOf('carol', 'comment.created')).length > 0, 'carol comment.created');
    // dana is mentioned: one mention, not also a "new comment" for the same comment.
    await waitFor(async () => (await inAppOf('dana', 'comment.mentioned')).length > 0, 'dana mention');
    // nina cannot read the document: not notified; mara is the author: not notified of her own comment.
    expect(await inAppOf('nina', 'comment.mentioned')).toEqual([]);
    expect(await inAppOf('mara', 'comment.mentioned')).toEqual([]);
    const danaCreated = (await inAppOf('dana', 'comment.created')).filter((n) => n.message.includes('please look'));
    expect(danaCreated).toEqual([]);
  });

  it('records create, edit and delete in the audit trail', async () => {
    const created = await call('POST', `/api/documents/${documentId}/comments`, 'carol', { body: 'audited' });
    await call('PATCH', `/api/comments/${created.body.id}`, 'carol', { body: 'audited twice' });
    await call('DELETE', `/api/comments/${created.body.id}`, 'carol');
    const events = await call('GET', `/api/audit-events?targetType=comment&targetId=${created.body.id}`, 'admin');
    expect(events.status).toBe(200);
    expect(events.body.events.map((event: { action: string }) => event.action).sort()).toEqual([
      'comment.created',
      'comment.deleted',
      'comment.edited',
    ]);
  });

  it('hides the comments of a trashed document and removes them with a purge', async () => {
    expect((await call('DELETE', `/api/documents/${documentId}`, 'carol')).status).toBe(204);
    expectError(await call('GET', `/api/documents/${documentId}/comments`, 'carol'), 404, 'document_not_found');
    expect((await call('DELETE', `/api/documents/${documentId}?permanent=true`, 'admin')).status).toBe(204);
    const [row] = await t.dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM document_comments WHERE documentId = ?',
      [documentId],
    );
    expect(Number(row.n)).toBe(0);
  });
});
