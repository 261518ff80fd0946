// WEBHOOK_MAX_PER_SECOND: the delivery worker starts at most a twentieth of it per 50 ms slice, so
// a backlog drains at a bounded rate and requests keep their share of the CPU.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery/webhook-delivery.worker.js';
import { addDocument, addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, recordEvent, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe.each(databasesUnderTest())('webhook delivery pacing on %s', (kind) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp(kind, {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_MAX_PER_SECOND: '40',
    });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('sends WEBHOOK_MAX_PER_SECOND / 20 deliveries per slice, and says when more are due', async () => {
    const worker = t.app.get(WebhookDeliveryWorker);
    // Only the slices this test runs send anything.
    await worker.onModuleDestroy();
    const projectId = await addProject(t, 'Paced');
    const mona = await addUser(t, 'mona', { [projectId]: 'manager' });
    const call = apiCaller(t, { mona: await t.login('mona') });
    const created = await call('mona', 'POST', '/api/webhooks', {
      url: `${receiver.url}/paced`,
      events: ['document.updated'],
      projectId,
    });
    expect(created.status).toBe(201);
    const hookId = (created.body as { id: string }).id;
    for (const title of ['one', 'two', 'three']) {
      const documentId = await addDocument(t, { projectId, uploadedBy: mona, title });
      await recordEvent(t, { type: 'document.updated', actorId: mona, projectId, documentId, payload: { title } });
    }
    await waitFor(async () => {
      const log = await call('mona', 'GET', `/api/webhooks/${hookId}/deliveries?limit=10`);
      return (log.body as { deliveries: unknown[] }).deliveries.length === 3;
    }, 'three due deliveries');

    expect(await worker.deliverBatch()).toBe(true);
    expect(receiver.at('/paced')).toHaveLength(2);
    expect(await worker.deliverBatch()).toBe(false);
    expect(receiver.at('/paced')).toHaveLength(3);
    expect(await worker.deliverBatch()).toBe(false);
    expect(receiver.at('/paced')).toHaveLength(3);
  });
});
