// Two app instances on one database: each event reaches each hook exactly once.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocument, addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, recordEvent, startInstance, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const EVENTS = 40;

describe.each(databasesUnderTest())('webhooks with two instances on %s', (kind) => {
  let t: TestApp;
  let second: { app: NestFastifyApplication; url: string } | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp(kind, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    second = await startInstance(t.env);
  });

  afterAll(async () => {
    await second?.app.close();
    await t?.close();
    await receiver?.close();
  });

  it('delivers every event once to each hook', async () => {
    const call = apiCaller(t, { admin: await t.login('admin') });
    const projectId = await addProject(t, 'Busy');
    const carl = await addUser(t, 'carl', { [projectId]: 'contributor' });
    for (const path of ['/a', '/b']) {
      const created = await call('admin', 'POST', '/api/webhooks', {
        url: `${receiver.url}${path}`,
        events: ['document.updated'],
      });
      expect(created.status).toBe(201);
    }
    const documentId = await addDocument(t, { projectId, uploadedBy: carl });
    await Promise.all(
      Array.from({ length: EVENTS }, (_, index) =>
        recordEvent(t, { type: 'document.updated', actorId: carl, projectId, documentId, payload: { index } }),
      ),
    );
    await waitFor(
      async () => {
        const [row] = await t.dataSource.query<{ n: number | string }[]>(
          "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'",
        );
        return Number(row.n) === 2 * EVENTS;
      },
      'every delivery succeeded',
      30_000,
    );
    const [pending] = await t.dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM outbox_events WHERE webhooksQueuedAt IS NULL',
    );
    expect(Number(pending.n)).toBe(0);
    for (const path of ['/a', '/b']) {
      const requests = receiver.at(path);
      expect(requests).toHaveLength(EVENTS);
      expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(EVENTS);
      expect(new Set(requests.map((request) => JSON.parse(request.body).data.index)).size).toBe(EVENTS);
    }
  });
});
