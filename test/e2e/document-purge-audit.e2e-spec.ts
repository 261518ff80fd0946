import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../src/audit/entities/audit-event.entity.js';
import { DocumentTrashService } from '../../src/documents/document-trash.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument } from '../support/document-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** A document removed for good leaves an audit event: who, when, what (issue 30 #12). */
describe.each(databasesUnderTest())('audit of permanent deletes on %s', (kind) => {
  let t: TestApp;

  const auditOf = (documentId: string) =>
    t.dataSource.getRepository(AuditEvent).findBy({ targetType: 'document', targetId: documentId });

  beforeAll(async () => {
    t = await createTestApp(kind);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('DELETE ?permanent=true records document.purged with the actor, title and project', async () => {
    const projectId = t.seed.projects[0].id;
    const documentId = await addDocument(t, { projectId, uploadedBy: t.user('alice').id, title: 'To be shredded' });
    const before = Date.now();
    const response = await fetch(`${t.url}/api/documents/${documentId}?permanent=true`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await t.login('admin')}` },
    });
    expect(response.status).toBe(204);
    const events = await auditOf(documentId);
    expect(events).toEqual([
      expect.objectContaining({
        action: 'document.purged',
        actorId: t.user('admin').id,
        changes: {
          title: { from: 'To be shredded', to: null },
          projectId: { from: projectId, to: null },
        },
      }),
    ]);
    expect(events[0].at.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('the trash purge records one document.purged per removed document, with no actor', async () => {
    const projectId = t.seed.projects[0].id;
    const longAgo = new Date(Date.now() - 400 * 86_400_000);
    const documentId = await addDocument(t, {
      projectId,
      uploadedBy: t.user('alice').id,
      title: 'Forgotten in the trash',
      updatedAt: longAgo,
      deletedAt: longAgo,
      deletedBy: t.user('alice').id,
    });
    const result = await t.app.get(DocumentTrashService).purgeExpired();
    expect(result.documents).toBeGreaterThanOrEqual(1);
    expect(await auditOf(documentId)).toEqual([
      expect.objectContaining({
        action: 'document.purged',
        actorId: null,
        changes: {
          title: { from: 'Forgotten in the trash', to: null },
          projectId: { from: projectId, to: null },
        },
      }),
    ]);
  });
});
