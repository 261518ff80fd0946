// Legal holds: a held document refuses trash, permanent delete and the scheduled purge (409
// legal_hold naming the hold) while metadata changes and new versions stay allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentTrashService } from '../../src/documents/document-trash.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const UNKNOWN = '0f0e0d0c-0b0a-4909-8807-060504030201';
const DAY_MS = 86_400_000;

describe.each(databasesUnderTest())('legal holds on %s', (kind) => {
  let t: TestApp;
  let token: string;

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function upload(title: string, projectIndex = 0): Promise<string> {
    const created = await sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'title', value: title },
      { name: 'projectId', value: t.seed.projects[projectIndex].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: `${title}.txt`, bytes: title, type: 'text/plain' },
    ]);
    if (created.status !== 201) throw new Error(`upload answered ${created.status}`);
    return created.body.document.id as string;
  }

  const hold = (body: object) =>
    call('POST', '/api/legal-holds', { name: 'Smith v. Acme', reason: 'Litigation', ...body });

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('admin');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses a hold that names nothing, an unknown document or an unknown project', async () => {
    expectError(await hold({}), 400, 'validation_failed');
    expectError(await hold({ documentIds: ['not-a-uuid'] }), 400, 'validation_failed');
    expectError(await hold({ documentIds: [UNKNOWN] }), 404, 'document_not_found');
    expectError(await hold({ projectId: UNKNOWN }), 404, 'project_not_found');
    expectError(await call('GET', `/api/legal-holds/${UNKNOWN}`), 404, 'legal_hold_not_found');
    expectError(await call('DELETE', `/api/legal-holds/${UNKNOWN}`), 404, 'legal_hold_not_found');
  });

  it('keeps a held document from the trash and from permanent delete, but lets it change and grow versions', async () => {
    const documentId = await upload('held');
    const created = await hold({ documentIds: [documentId.toUpperCase()] });
    expect(created.status).toBe(201);
    const holdId = created.body.legalHold.id as string;
    expect(created.body.legalHold).toMatchObject({
      name: 'Smith v. Acme',
      projectId: null,
      documentCount: 1,
      documents: [{ id: documentId, title: 'held', trashed: false }],
    });

    for (const path of [`/api/documents/${documentId}`, `/api/documents/${documentId}?permanent=true`]) {
      const refused = await call('DELETE', path);
      expectError(refused, 409, 'legal_hold');
      expect(refused.body.details).toContain(`"Smith v. Acme" (${holdId})`);
    }
    expect((await call('PUT', `/api/documents/${documentId}`, { title: 'held, renamed' })).status).toBe(200);
    const version = await sendMultipart(`${t.url}/api/documents/${documentId}/versions`, token, [
      { name: 'file', fileName: 'v2.txt', bytes: 'second', type: 'text/plain' },
    ]);
    expect(version.status).toBe(201);

    expect((await call('GET', `/api/legal-holds/${holdId}`)).body.legalHold.documents[0].title).toBe('held, renamed');
    expect((await call('GET', '/api/legal-holds')).body.legalHolds.map((h: { id: string }) => h.id)).toContain(holdId);

    expect((await call('DELETE', `/api/legal-holds/${holdId}`)).status).toBe(204);
    expect((await call('DELETE', `/api/documents/${documentId}`)).status).toBe(204);

    const audit = await call('GET', `/api/audit-events?targetId=${holdId}`);
    expect(audit.body.events.map((event: { action: string }) => event.action).sort()).toEqual([
      'legal_hold.created',
      'legal_hold.released',
    ]);
  });

  it('holds every document of a project, including one added after the hold', async () => {
    const created = await hold({ name: 'Project freeze', projectId: t.seed.projects[1].id });
    expect(created.status).toBe(201);
    const later = await upload('added later', 1);
    expectError(await call('DELETE', `/api/documents/${later}`), 409, 'legal_hold');
    const listed = await call('GET', `/api/legal-holds/${created.body.legalHold.id}`);
    expect(listed.body.legalHold.documents.map((d: { id: string }) => d.id)).toContain(later);
    expect(listed.body.legalHold.documentCount).toBe(listed.body.legalHold.documents.length);
    expect((await call('DELETE', `/api/legal-holds/${created.body.legalHold.id}`)).status).toBe(204);
  });

  it('the scheduled purge skips a held document in the trash and removes the others', async () => {
    const kept = await upload('trashed then held');
    const purged = await upload('trashed, not held');
    for (const id of [kept, purged]) expect((await call('DELETE', `/api/documents/${id}`)).status).toBe(204);
    expect((await hold({ documentIds: [kept] })).status).toBe(201);

    const afterRetention = new Date(Date.now() + (t.config.storage.trashRetentionDays + 1) * DAY_MS);
    const result = await t.app.get(DocumentTrashService).purgeExpired(afterRetention);
    expect(result.documents).toBeGreaterThanOrEqual(1);
    const trash = await call('GET', '/api/documents/trash?limit=100');
    const ids = trash.body.documents.map((d: { id: string }) => d.id);
    expect(ids).toContain(kept);
    expect(ids).not.toContain(purged);
  });
});
