// Retention: a document type's policy applied by the scheduled job (TestClock + ClusterJobs.tick),
// once per document, never to a document under legal hold, audited and notified to participants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_JOB } from '../../src/retention/retention.service.js';
import { ClusterJobs } from '../../src/scheduling/cluster-jobs.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { undispatchedEvents, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';
import { sendMultipart } from '../support/uploads.js';

const DAY_MS = 86_400_000;

describe.each(databasesUnderTest())('retention on %s', (kind) => {
  const clock = new TestClock();
  let t: TestApp;
  const tokens: Record<string, string> = {};

  async function call(
    who: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function upload(title: string, documentTypeId: string): Promise<string> {
    const created = await sendMultipart(`${t.url}/api/documents`, tokens.alice, [
      { name: 'title', value: title },
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: documentTypeId },
      { name: 'file', fileName: `${title}.txt`, bytes: title, type: 'text/plain' },
    ]);
    if (created.status !== 201) throw new Error(`upload answered ${created.status}`);
    return created.body.document.id as string;
  }

  async function addType(name: string, retention: object): Promise<string> {
    const created = await call('admin', 'POST', '/api/document-types', { name, description: '', retention });
    expect(created.status).toBe(201);
    expect(created.body.documentType.retention).toEqual(retention);
    return created.body.documentType.id as string;
  }

  const status = async (id: string) => {
    const found = await call('admin', 'GET', `/api/documents/${id}`);
    return found.status === 200 ? (found.body.document.status as string) : found.status;
  };
  const retentionEvents = async () =>
    (await call('admin', 'GET', '/api/audit-events?action=document.retention_applied&limit=100')).body.events as {
      targetId: string;
    }[];
  const tick = async () => {
    clock.advance(2 * 60 * 60_000);
    expect(await t.app.get(ClusterJobs).tick(RETENTION_JOB)).toBe(true);
  };

  beforeAll(async () => {
    t = await createTestApp(kind, {}, undefined, { clock });
    for (const who of ['admin', 'alice']) tokens[who] = await t.login(who);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('validates the policy on document types', async () => {
    const bad = [{ days: 0, from: 'created', action: 'trash' }, { days: 5, from: 'signed', action: 'trash' }, 'soon'];
    for (const retention of bad) {
      expectError(
        await call('admin', 'POST', '/api/document-types', { name: 'Bad', description: '', retention }),
        400,
        'validation_failed',
      );
    }
    const id = await addType('Temporary', { days: 1, from: 'created', action: 'trash' });
    const cleared = await call('admin', 'PATCH', `/api/document-types/${id}`, { retention: null });
    expect(cleared.body.documentType).toEqual({ id, name: 'Temporary', description: '' });
  });

  it('applies each action once, never to a held document, and tells the participants', async () => {
    const trashType = await addType('Drafts kept 30 days', { days: 30, from: 'created', action: 'trash' });
    const purgeType = await addType('Scratch', { days: 5, from: 'created', action: 'purge' });
    const archiveType = await addType('Notices', { days: 10, from: 'published', action: 'archive' });
    const trashed = await upload('trash me', trashType);
    const held = await upload('held', trashType);
    const purged = await upload('purge me', purgeType);
    const published = await upload('archive me', archiveType);
    const draft = await upload('still a draft', archiveType);
    expect((await call('alice', 'POST', `/api/documents/${published}/status`, { status: 'in_review' })).status).toBe(
      200,
    );
    expect((await call('admin', 'POST', `/api/documents/${published}/status`, { status: 'published' })).status).toBe(
      200,
    );
    const hold = await call('admin', 'POST', '/api/legal-holds', {
      name: 'Audit 2026',
      reason: 'Keep',
      documentIds: [held],
    });
    expect(hold.status).toBe(201);

    // Not yet due: nothing happens.
    await tick();
    expect(await retentionEvents()).toEqual([]);

    clock.advance(31 * DAY_MS);
    await tick();
    expect(await status(trashed)).toBe(404);
    expect(await status(held)).toBe('draft');
    expect(await status(purged)).toBe(404);
    expect(await status(published)).toBe('archived');
    expect(await status(draft)).toBe('draft');
    expect((await retentionEvents()).map((event) => event.targetId).sort()).toEqual(
      [trashed, purged, published].sort(),
    );
    const trash = (await call('admin', 'GET', '/api/documents/trash?limit=100')).body.documents.map(
      (d: { id: string }) => d.id,
    );
    expect(trash).toContain(trashed);
    expect(trash).not.toContain(purged);

    // Once: restored or moved back, a document is not retained again.
    expect((await call('admin', 'POST', `/api/documents/${trashed}/restore`)).status).toBe(200);
    expect((await call('admin', 'POST', `/api/documents/${published}/status`, { status: 'draft' })).status).toBe(200);
    await tick();
    expect(await status(trashed)).toBe('draft');
    expect((await retentionEvents()).length).toBe(3);

    // Released, the held document's time has come too.
    expect((await call('admin', 'DELETE', `/api/legal-holds/${hold.body.legalHold.id}`)).status).toBe(204);
    await tick();
    expect(await status(held)).toBe(404);
    expect((await retentionEvents()).length).toBe(4);

    // alice uploaded them: she hears of each, the purge included.
    const told = await waitFor(async () => {
      const list = await call('alice', 'GET', '/api/notifications?type=in_app&limit=100');
      const events = (list.body.notifications as { event: string; subject: string }[]).filter(
        (notification) => notification.event === 'document.retention_applied',
      );
      return events.length === 4 && events;
    }, 'four retention notifications for alice');
    expect(told.map((notification) => notification.subject)).toContain('"purge me" was deleted for good by retention');
  });

  it('tells a participant once per action: the archive or trash it caused is not notified again', async () => {
    const trashType = await addType('Memos kept 3 days', { days: 3, from: 'created', action: 'trash' });
    const archiveType = await addType('Circulars', { days: 2, from: 'published', action: 'archive' });
    const trashed = await upload('memo once', trashType);
    const published = await upload('circular once', archiveType);
    expect((await call('alice', 'POST', `/api/documents/${published}/status`, { status: 'in_review' })).status).toBe(
      200,
    );
    expect((await call('admin', 'POST', `/api/documents/${published}/status`, { status: 'published' })).status).toBe(
      200,
    );
    clock.advance(4 * DAY_MS);
    await tick();
    expect(await status(trashed)).toBe(404);
    expect(await status(published)).toBe('archived');
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'every event dispatched');
    const list = await call('alice', 'GET', '/api/notifications?type=in_app&limit=100');
    const about = (id: string) =>
      (list.body.notifications as { event: string; subject: string; documentId: string | null }[])
        .filter((notification) => notification.documentId === id)
        .map((notification) => notification.subject)
        .toSorted();
    expect(about(trashed)).toEqual(['"memo once" was moved to the trash by retention']);
    // The publish (by the admin) was news; the archive comes once, from retention.
    expect(about(published)).toEqual(['"circular once" is now published', '"circular once" was archived by retention']);
  });
});
