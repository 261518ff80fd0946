import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument } from '../support/document-fixtures.js';
import { apiCaller, recordEvent, undispatchedEvents, waitFor, type Json } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface Truth {
  documentId: string | null;
  total: number | string;
  unread: number | string;
}

describe.each(databasesUnderTest())('notification threads on %s', (kind) => {
  let t: TestApp;
  let call: (username: string, method: string, path: string, body?: unknown) => Promise<Json>;
  const documents: string[] = [];

  /** Every thread of bob, page by page (`limit` a page). */
  async function allThreads(limit: number): Promise<Json['body'][]> {
    const threads = [];
    let cursor: string | null = null;
    do {
      const page: Json = await call(
        'bob',
        'GET',
        `/api/notifications/threads?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      threads.push(...page.body.threads);
      cursor = page.body.nextCursor;
    } while (cursor);
    return threads;
  }

  /** bob's in-app notifications counted straight from the rows. */
  async function truth(): Promise<Map<string | null, { total: number; unread: number }>> {
    const rows = await t.dataSource.query<Truth[]>(
      `SELECT documentId, COUNT(*) AS total, SUM(CASE WHEN readAt IS NULL THEN 1 ELSE 0 END) AS unread
       FROM notifications WHERE userId = ? AND notificationType = 'in_app' AND documentId IS NOT NULL GROUP BY documentId`,
      [t.user('bob').id],
    );
    return new Map(rows.map((row) => [row.documentId, { total: Number(row.total), unread: Number(row.unread) }]));
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    const projectId = t.seed.projects.find((p) => p.members.some((m) => m.userId === t.user('bob').id))!.id;
    for (let index = 0; index < 3; index++) {
      documents.push(await addDocument(t, { projectId, uploadedBy: t.user('bob').id, title: `Thread doc ${index}` }));
    }
    call = apiCaller(t, { bob: await t.login('bob') });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts stay exact while events arrive and threads are read at the same time', async () => {
    const erin = t.user('erin').id;
    const writes = [];
    for (let round = 0; round < 8; round++) {
      for (const documentId of documents) {
        writes.push(recordEvent(t, { type: 'document.updated', actorId: erin, documentId }));
      }
      // Reads of one thread race the dispatcher's inserts.
      writes.push(call('bob', 'POST', `/api/notifications/threads/${documents[0]}/read`, {}));
    }
    writes.push(recordEvent(t, { type: 'project.member_added', actorId: erin, subjectUserId: t.user('bob').id }));
    await Promise.all(writes);
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'every event dispatched');

    const threads = await allThreads(2);
    const expected = await truth();
    for (const documentId of documents) {
      const thread = threads.find((candidate) => candidate.documentId === documentId);
      expect(thread).toMatchObject({ source: 'document', title: expect.stringMatching(/^Thread doc/), total: 8 });
      expect({ total: thread.total, unread: thread.unread }).toEqual(expected.get(documentId));
      expect(thread.newest.documentId).toBe(documentId);
    }
    const member = threads.find((candidate) => candidate.source === 'project.member_added');
    expect(member).toMatchObject({ documentId: null, total: expect.any(Number) });
    // Newest first, and walking with small pages neither repeats nor skips a thread.
    const newest = threads.map((thread) => Date.parse(thread.newest.createdAt));
    expect(newest).toEqual(newest.toSorted((a, b) => b - a));
    const keys = threads.map((thread) => thread.documentId ?? thread.source);
    expect(new Set(keys).size).toBe(keys.length);
    expect((await allThreads(100)).map((thread) => thread.documentId ?? thread.source)).toEqual(keys);
  });

  it('reading a thread reads all of it, and only it', async () => {
    const answer = await call('bob', 'POST', `/api/notifications/threads/${documents[1]}/read`, {});
    expect(answer.status).toBe(200);
    expect(answer.body.updated).toBeGreaterThanOrEqual(8);
    const threads = await allThreads(100);
    expect(threads.find((thread) => thread.documentId === documents[1]).unread).toBe(0);
    expect(threads.find((thread) => thread.documentId === documents[2]).unread).toBe(8);
    expect((await call('bob', 'POST', `/api/notifications/threads/${documents[1]}/read`, {})).body).toEqual({
      updated: 0,
    });
    const unread = await call('bob', 'GET', '/api/notifications/unread-count');
    const rows = await t.dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM notifications WHERE userId = ? AND readAt IS NULL',
      [t.user('bob').id],
    );
    expect(unread.body.unread).toBe(Number(rows[0].n));
  });
});
