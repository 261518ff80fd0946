// Webhook deliveries end to end: a real receiver on 127.0.0.1, signatures checked with the
// independent `standardwebhooks` package, retries driven by a test clock (no sleeping through
// back-off), replays, the project and read rules, and disabling after repeated failures.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery/webhook-delivery.worker.js';
import { addDocument, addProject, addUser, setMember } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, recordEvent, waitFor } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe.each(databasesUnderTest())('webhook deliveries on %s', (kind) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let call: ReturnType<typeof apiCaller>;
  let projectId: string;
  let otherProjectId: string;
  const clock = new TestClock(new Date());
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.statusFor = (path) => (path.startsWith('/down') ? 503 : 200);
    t = await createTestApp(
      kind,
      {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_RETRY_BASE_SECONDS: '30',
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_DISABLE_AFTER: '2',
      },
      undefined,
      { clock },
    );
    projectId = await addProject(t, 'Hooked');
    otherProjectId = await addProject(t, 'Unhooked');
    ids.mona = await addUser(t, 'mona', { [projectId]: 'manager' });
    ids.carl = await addUser(t, 'carl', { [projectId]: 'contributor', [otherProjectId]: 'contributor' });
    for (const name of ['admin', 'mona']) tokens[name] = await t.login(name);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function hook(who: string, path: string, events: string[], project: string | null = projectId) {
    const created = await call(who, 'POST', '/api/webhooks', {
      url: `${receiver.url}${path}`,
      events,
      ...(project ? { projectId: project } : {}),
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  }

  /** A document of carl's in `project` and a document.updated event about it. */
  async function documentEvent(project: string, title: string): Promise<string> {
    const documentId = await addDocument(t, { projectId: project, uploadedBy: ids.carl, title });
    await recordEvent(
      t,
      { type: 'document.updated', actorId: ids.carl, projectId: project, documentId, payload: { title } },
      clock.now(),
    );
    return documentId;
  }

  const deliveriesOf = async (hookId: string) =>
    (await call('admin', 'GET', `/api/webhooks/${hookId}/deliveries?limit=100`)).body.deliveries as any[];
  const worker = () => t.app.get(WebhookDeliveryWorker);

  it('POSTs {type, timestamp, data} signed as Standard Webhooks verifies, and logs the delivery', async () => {
    const { id, secret } = await hook('mona', '/signed', ['document.updated']);
    const documentId = await documentEvent(projectId, 'Signed contract');
    const [request] = await waitFor(
      async () => receiver.at('/signed').length > 0 && receiver.at('/signed'),
      'a delivery',
    );
    const verified = new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>) as any;
    expect(verified).toMatchObject({
      type: 'document.updated',
      data: { documentId, projectId, actorId: ids.carl, title: 'Signed contract' },
    });
    expect(Object.keys(verified).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        request.body,
        request.headers as Record<string, string>,
      ),
    ).toThrow(/signature/i);

    const [delivery] = await waitFor(async () => {
      const log = await deliveriesOf(id);
      return log[0]?.status === 'succeeded' && log;
    }, 'the delivery logged as succeeded');
    expect(delivery).toMatchObject({
      id: request.headers['webhook-id'],
      attempts: 1,
      responseStatus: 200,
      nextAttemptAt: null,
    });
    expect(delivery.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('retries on a non-2xx answer after the back-off (moved by the clock), then fails; a replay re-sends', async () => {
    const { id } = await hook('mona', '/down-once', ['document.updated']);
    receiver.statusFor = (path) => (path.startsWith('/down') ? 503 : 200);
    const started = clock.now().getTime();
    await documentEvent(projectId, 'Flaky receiver');
    await waitFor(async () => receiver.at('/down-once').length === 1, 'the first attempt');
    const [pending] = await waitFor(async () => {
      const log = await deliveriesOf(id);
      return log[0]?.responseStatus === 503 && log;
    }, 'the first attempt logged');
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastError: 'answered 503' });
    // Base 30 s plus up to 20 % jitter.
    const due = new Date(pending.nextAttemptAt).getTime() - started;
    expect(due).toBeGreaterThanOrEqual(30_000);
    expect(due).toBeLessThanOrEqual(36_000);

    clock.advance(29_000);
    await worker().deliverBatch();
    expect(receiver.at('/down-once')).toHaveLength(1);

    clock.advance(7_001);
    await worker().deliverBatch();
    await waitFor(async () => receiver.at('/down-once').length === 2, 'the retry');
    const [failed] = await waitFor(async () => {
      const log = await deliveriesOf(id);
      return log[0]?.status === 'failed' && log;
    }, 'the delivery failed after its last attempt');
    expect(failed).toMatchObject({ attempts: 2, nextAttemptAt: null, responseStatus: 503 });
    const [first, second] = receiver.at('/down-once');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);

    receiver.statusFor = () => 200;
    const replay = await call('mona', 'POST', `/api/webhooks/${id}/deliveries/${failed.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ status: 'pending', attempts: 0 });
    await waitFor(async () => receiver.at('/down-once').length === 3, 'the replay');
    expect(receiver.at('/down-once')[2].headers['webhook-id']).toBe(first.headers['webhook-id']);
    await waitFor(async () => (await deliveriesOf(id))[0]?.status === 'succeeded', 'the replay succeeded');
    expect((await call('mona', 'DELETE', `/api/webhooks/${id}`)).status).toBe(204);
  });

  it("never tells a project's hook of another project, nor of a document its owner cannot read", async () => {
    const { id } = await hook('mona', '/scoped', ['document.updated']);
    await documentEvent(otherProjectId, 'Not for this hook');
    const inProject = await documentEvent(projectId, 'For this hook');
    await waitFor(async () => receiver.at('/scoped').length === 1, 'the delivery of the project event');
    expect(JSON.parse(receiver.at('/scoped')[0].body).data.documentId).toBe(inProject);

    // mona leaves the project: her hook hears of nothing she can no longer read.
    await t.dataSource.query('DELETE FROM project_members WHERE projectId = ? AND userId = ?', [projectId, ids.mona]);
    const marker = await hook('admin', '/marker', ['document.updated'], null);
    await documentEvent(projectId, 'Hidden from the owner');
    await documentEvent(projectId, 'Marker');
    await waitFor(async () => receiver.at('/marker').length === 2, 'the global hook heard both');
    expect(receiver.at('/scoped')).toHaveLength(1);
    expect((await deliveriesOf(id)).length).toBe(1);
    await call('admin', 'DELETE', `/api/webhooks/${marker.id}`, undefined);
    await setMember(t, projectId, ids.mona, 'manager');
  });

  it('disables a hook whose last deliveries all failed and tells its owner', async () => {
    receiver.statusFor = (path) => (path.startsWith('/down') ? 503 : 200);
    const { id } = await hook('mona', '/down-always', ['document.updated']);
    await documentEvent(projectId, 'First failure');
    await documentEvent(projectId, 'Second failure');
    await waitFor(async () => receiver.at('/down-always').length === 2, 'two first attempts');
    await waitFor(
      async () => (await deliveriesOf(id)).every((d) => d.attempts === 1 && d.status === 'pending' && d.nextAttemptAt),
      'both waiting',
    );
    clock.advance(40_000);
    await worker().deliverBatch();
    const read = await waitFor(async () => {
      const found = await call('mona', 'GET', `/api/webhooks/${id}`);
      return found.body.enabled === false && found.body;
    }, 'the hook disabled');
    expect(read.disabledAt).not.toBeNull();
    const notification = await waitFor(async () => {
      const list = await call('mona', 'GET', '/api/notifications?type=in_app&limit=100');
      return (list.body.notifications as any[]).find(
        (n) => n.event === 'webhook.disabled' && n.subject.includes('/down-always'),
      );
    }, 'the webhook.disabled notification');
    expect(notification.message).toContain('2 failed deliveries');
  });
});
