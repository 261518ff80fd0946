// Webhooks as an API: who may create and manage them, what is answered (the secret once), which
// receiver URLs are refused (SSRF), and the audit trail of every change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProject, addUser } from '../support/document-fixtures.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { apiCaller } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('webhooks API on %s', (kind) => {
  let t: TestApp;
  let call: ReturnType<typeof apiCaller>;
  let projectId: string;
  let otherProjectId: string;
  const tokens: Record<string, string> = {};
  const RECEIVER = 'http://127.0.0.1:9/hook';

  beforeAll(async () => {
    t = await createTestApp(kind, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    projectId = await addProject(t, 'Hooks');
    otherProjectId = await addProject(t, 'Elsewhere');
    await addUser(t, 'mona', { [projectId]: 'manager' });
    await addUser(t, 'carl', { [projectId]: 'contributor', [otherProjectId]: 'manager' });
    await addUser(t, 'nora');
    for (const name of ['admin', 'mona', 'carl', 'nora']) tokens[name] = await t.login(name);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
  });

  const auditActions = async (id: string) =>
    (
      await t.dataSource.query<{ action: string }[]>(
        'SELECT action FROM audit_events WHERE targetId = ? ORDER BY at, id',
        [id],
      )
    ).map((row) => row.action);

  it('creates a global hook for projects:manage only, answering the secret once', async () => {
    const created = await call('admin', 'POST', '/api/webhooks', {
      url: RECEIVER,
      events: ['document.created', 'document.updated'],
      description: 'Archive sync',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: RECEIVER,
      events: ['document.created', 'document.updated'],
      projectId: null,
      description: 'Archive sync',
      enabled: true,
      disabledAt: null,
      ownerId: t.user('admin').id,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const read = await call('admin', 'GET', `/api/webhooks/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);

    expectError(
      await call('mona', 'POST', '/api/webhooks', { url: RECEIVER, events: ['document.created'] }),
      403,
      'forbidden',
    );
    expectError(await call('mona', 'GET', `/api/webhooks/${created.body.id}`), 404, 'webhook_not_found');
  });

  it("lets a project's managers (and projects:manage) manage its hooks, nobody else", async () => {
    const body = { url: RECEIVER, events: ['document.created'], projectId };
    const created = await call('mona', 'POST', '/api/webhooks', body);
    expect(created.status).toBe(201);
    expect(created.body.projectId).toBe(projectId);
    expectError(await call('carl', 'POST', '/api/webhooks', body), 403, 'forbidden');
    expectError(await call('nora', 'POST', '/api/webhooks', body), 403, 'forbidden');
    expect((await call('carl', 'POST', '/api/webhooks', { ...body, projectId: otherProjectId })).status).toBe(201);
    expectError(
      await call('admin', 'POST', '/api/webhooks', { ...body, projectId: '2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d' }),
      404,
      'project_not_found',
    );
    const id = created.body.id as string;
    expect((await call('admin', 'GET', `/api/webhooks/${id}`)).status).toBe(200);
    expectError(await call('carl', 'GET', `/api/webhooks/${id}`), 404, 'webhook_not_found');
    expectError(await call('carl', 'DELETE', `/api/webhooks/${id}`), 404, 'webhook_not_found');
  });

  it('changes, rotates and deletes a hook, each audited without the secret', async () => {
    const created = await call('mona', 'POST', '/api/webhooks', {
      url: RECEIVER,
      events: ['document.created'],
      projectId,
    });
    const id = created.body.id as string;
    const patched = await call('mona', 'PATCH', `/api/webhooks/${id}`, {
      events: ['document.deleted'],
      description: 'Trash watcher',
      enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['document.deleted'], description: 'Trash watcher', enabled: false });
    expect(patched.body.disabledAt).not.toBeNull();

    const rotated = await call('mona', 'POST', `/api/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const [row] = await t.dataSource.query<{ secret: string }[]>('SELECT secret FROM webhooks WHERE id = ?', [id]);
    expect(row.secret).toBe(rotated.body.secret);

    expect((await call('mona', 'DELETE', `/api/webhooks/${id}`)).status).toBe(204);
    expectError(await call('mona', 'GET', `/api/webhooks/${id}`), 404, 'webhook_not_found');
    expect(await auditActions(id)).toEqual([
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
    ]);
    const trail = JSON.stringify(await t.dataSource.query('SELECT changes FROM audit_events WHERE targetId = ?', [id]));
    expect(trail).not.toContain(created.body.secret.slice(6));
    expect(trail).not.toContain(rotated.body.secret.slice(6));
  });

  it('refuses receivers on private or reserved addresses, other schemes and credentials (SSRF)', async () => {
    const refused = [
      'https://10.0.0.1/hook',
      'https://192.168.1.20/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'http://localhost:9/hook',
      'ftp://127.0.0.1/hook',
      'http://user:pass@127.0.0.1:9/hook',
      'not a url',
    ];
    for (const url of refused) {
      expectError(
        await call('admin', 'POST', '/api/webhooks', { url, events: ['document.created'] }),
        400,
        'webhook_url_refused',
      );
    }
    const created = await call('admin', 'POST', '/api/webhooks', { url: RECEIVER, events: ['document.created'] });
    expect(created.status).toBe(201);
    expectError(
      await call('admin', 'PATCH', `/api/webhooks/${created.body.id}`, { url: 'https://172.16.0.5/hook' }),
      400,
      'webhook_url_refused',
    );
  });

  it('validates the body: known event types, no repeats, no unknown fields', async () => {
    for (const body of [
      { url: RECEIVER, events: [] },
      { url: RECEIVER, events: ['document.created', 'document.created'] },
      { url: RECEIVER, events: ['search.matched'] },
      { url: RECEIVER, events: ['document.created'], secret: 'whsec_mine' },
      { events: ['document.created'] },
    ]) {
      expectError(await call('admin', 'POST', '/api/webhooks', body), 400, 'validation_failed');
    }
  });
});
