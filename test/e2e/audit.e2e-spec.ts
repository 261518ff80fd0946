// The audit trail, on both databases: what is recorded (logins, logouts, password changes, every
// administrative change with its field changes, never a password or hash), that a refused change
// records nothing, and GET /api/audit-events (audit:read; filters, pages, cursor, bounds).
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../src/audit/entities/audit-event.entity.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const STRONG = 'amber-Lantern-cobalt-44';

interface Event {
  id: string;
  at: string;
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  ip: string | null;
  requestId: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
}

describe.each(databasesUnderTest())('audit trail on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  const events = async (query = ''): Promise<Event[]> => {
    const response = await request(t.url).get(`/api/audit-events?${query}`).set('authorization', `Bearer ${admin}`);
    expect(response.status).toBe(200);
    return response.body.events;
  };
  const stored = () => t.dataSource.getRepository(AuditEvent).count();

  it('records a login failure with the username as typed, the client address and the request id', async () => {
    const response = await request(t.url)
      .post('/api/auth/login')
      .set('x-request-id', 'req-login-1')
      .send({ username: 'alice ', password: 'wrong-password' });
    expect(response.status).toBe(401);
    const [event] = await events('action=auth.login_failed');
    expect(event).toMatchObject({
      actorId: null,
      targetType: 'user',
      targetId: null,
      ip: '127.0.0.1',
      requestId: 'req-login-1',
      changes: { username: { from: null, to: 'alice ' } },
    });
    const known = await request(t.url).post('/api/auth/login').send({ username: 'bob', password: 'wrong-password' });
    expect(known.status).toBe(401);
    expect((await events('action=auth.login_failed'))[0]).toMatchObject({ targetId: t.user('bob').id });
  });

  it('records login success and logout as the user', async () => {
    const token = await t.login('bob');
    await request(t.url).post('/api/auth/logout').set('authorization', `Bearer ${token}`);
    const [logout, login] = await events(`actorId=${t.user('bob').id}`);
    expect(logout).toMatchObject({ action: 'auth.logout', targetId: t.user('bob').id });
    expect(login).toMatchObject({ action: 'auth.login_succeeded', targetId: t.user('bob').id });
  });

  it('records user creation and changes field by field, and password changes, never a password or hash', async () => {
    const userRole = (await t.dataSource.getRepository(Role).findOneByOrFail({ name: 'user' })).id;
    const created = await request(t.url)
      .post('/api/users')
      .set('authorization', `Bearer ${admin}`)
      .set('x-request-id', 'req-create-1')
      .send({
        username: 'lena',
        email: 'lena@example.org',
        firstName: 'Lena',
        lastName: 'Roe',
        password: STRONG,
        roleIds: [userRole],
      });
    const id = created.body.user.id;
    await request(t.url)
      .patch(`/api/users/${id}`)
      .set('authorization', `Bearer ${admin}`)
      .send({ lastName: 'Rowe', isActive: false });
    await request(t.url).patch(`/api/users/${id}`).set('authorization', `Bearer ${admin}`).send({ isActive: true });
    await request(t.url)
      .post(`/api/users/${id}/password`)
      .set('authorization', `Bearer ${admin}`)
      .send({ newPassword: TEST_PASSWORD });
    const trail = await events(`targetType=user&targetId=${id}`);
    expect(trail.map((event) => event.action)).toEqual([
      'user.password_set',
      'user.updated',
      'user.updated',
      'user.created',
    ]);
    const [passwordSet, reactivated, changed, creation] = trail;
    expect(creation).toMatchObject({
      actorId: t.user('admin').id,
      requestId: 'req-create-1',
      changes: {
        username: { from: null, to: 'lena' },
        email: { from: null, to: 'lena@example.org' },
        isActive: { from: null, to: true },
        roleIds: { from: null, to: [userRole] },
      },
    });
    expect(changed.changes).toEqual({ lastName: { from: 'Roe', to: 'Rowe' }, isActive: { from: true, to: false } });
    expect(reactivated.changes).toEqual({ isActive: { from: false, to: true } });
    expect(passwordSet.changes).toEqual({});
    const all = JSON.stringify(await events('limit=100'));
    expect(all).not.toContain(STRONG);
    expect(all).not.toContain(TEST_PASSWORD);
    expect(all).not.toMatch(/argon2|passwordHash|wrong-password/);
  });

  it('records role and document type changes; a refused change records nothing', async () => {
    const role = await request(t.url)
      .post('/api/roles')
      .set('authorization', `Bearer ${admin}`)
      .send({ name: 'auditor', permissions: { audit: ['read'] } });
    await request(t.url).delete(`/api/roles/${role.body.role.id}`).set('authorization', `Bearer ${admin}`);
    const roleTrail = await events(`targetId=${role.body.role.id}`);
    expect(roleTrail.map((event) => [event.action, event.changes])).toEqual([
      ['role.deleted', { name: { from: 'auditor', to: null }, permissions: { from: { audit: ['read'] }, to: null } }],
      ['role.created', { name: { from: null, to: 'auditor' }, permissions: { from: null, to: { audit: ['read'] } } }],
    ]);
    const type = await request(t.url)
      .post('/api/document-types')
      .set('authorization', `Bearer ${admin}`)
      .send({ name: 'Memo', description: '' });
    expect((await events(`targetType=document_type`))[0]).toMatchObject({
      action: 'document_type.created',
      targetId: type.body.documentType.id,
    });

    const before = await stored();
    const adminId = t.user('admin').id;
    expect(
      (
        await request(t.url)
          .patch(`/api/users/${adminId}`)
          .set('authorization', `Bearer ${admin}`)
          .send({ isActive: false })
      ).status,
    ).toBe(409);
    expect(
      (
        await request(t.url)
          .post('/api/roles')
          .set('authorization', `Bearer ${admin}`)
          .send({ name: 'ADMIN', permissions: {} })
      ).status,
    ).toBe(409);
    expect(await stored()).toBe(before);
  });

  it('records project and membership changes, each once; a no-op or refused one records nothing', async () => {
    const as = (method: 'post' | 'patch' | 'put' | 'delete', path: string, requestId: string) =>
      request(t.url)[method](path).set('authorization', `Bearer ${admin}`).set('x-request-id', requestId);
    const adminId = t.user('admin').id;
    const bobId = t.user('bob').id;
    const created = await as('post', '/api/projects', 'req-project-1').send({ name: 'Audited', description: 'first' });
    expect(created.status).toBe(201);
    const id: string = created.body.project.id;
    const project = `/api/projects/${id}`;
    expect((await as('patch', project, 'req-project-2').send({ description: 'second' })).status).toBe(200);
    expect((await as('put', `${project}/members/${bobId}`, 'req-project-3').send({ role: 'viewer' })).status).toBe(200);
    expect((await as('put', `${project}/members/${bobId}`, 'req-project-4').send({ role: 'manager' })).status).toBe(
      200,
    );
    expect((await as('delete', `${project}/members/${bobId}`, 'req-project-5')).status).toBe(204);

    const trail = await events(`targetType=project&targetId=${id}`);
    expect(
      trail.map(({ actorId, action, targetType, ip, requestId, changes }) => ({
        actorId,
        action,
        targetType,
        ip,
        requestId,
        changes,
      })),
    ).toEqual(
      [
        ['project.member_removed', 'req-project-5', { [`members.${bobId}`]: { from: 'manager', to: null } }],
        ['project.member_role_changed', 'req-project-4', { [`members.${bobId}`]: { from: 'viewer', to: 'manager' } }],
        ['project.member_added', 'req-project-3', { [`members.${bobId}`]: { from: null, to: 'viewer' } }],
        ['project.updated', 'req-project-2', { description: { from: 'first', to: 'second' } }],
        [
          'project.created',
          'req-project-1',
          { name: { from: null, to: 'Audited' }, description: { from: null, to: 'first' } },
        ],
      ].map(([action, requestId, changes]) => ({
        actorId: adminId,
        action,
        targetType: 'project',
        ip: '127.0.0.1',
        requestId,
        changes,
      })),
    );

    // Changes that change nothing, and refused ones, record nothing.
    const alice = await t.login('alice'); // (a login is recorded: before counting)
    const before = await stored();
    expect((await as('patch', project, 'req-project-6').send({})).status).toBe(200);
    expect((await as('patch', project, 'req-project-7').send({ description: 'second' })).status).toBe(200);
    expect((await as('put', `${project}/members/${adminId}`, 'req-project-8').send({ role: 'manager' })).status).toBe(
      200,
    );
    const lastManager = await as('delete', `${project}/members/${adminId}`, 'req-project-9');
    expect([lastManager.status, lastManager.body.error]).toEqual([409, 'last_manager']);
    const demoted = await as('put', `${project}/members/${adminId}`, 'req-project-10').send({ role: 'viewer' });
    expect([demoted.status, demoted.body.error]).toEqual([409, 'last_manager']);
    const unknown = await as('put', `${project}/members/${randomUUID()}`, 'req-project-11').send({ role: 'viewer' });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'user_not_found']);
    const forbidden = await request(t.url)
      .put(`/api/projects/${t.seed.projects[0].id}/members/${bobId}`)
      .set('authorization', `Bearer ${alice}`)
      .send({ role: 'viewer' });
    expect(forbidden.status).toBe(403);
    expect(await stored()).toBe(before);
    expect(await events(`targetType=project&targetId=${id}`)).toEqual(trail);
  });

  it('lists newest first with filters, pages and a cursor that walks the same events', async () => {
    const page1 = await request(t.url).get('/api/audit-events?limit=3').set('authorization', `Bearer ${admin}`);
    expect(page1.body.pagination).toMatchObject({ page: 1, limit: 3, total: await stored() });
    const everything = await events('limit=100');
    const times = everything.map((event) => event.at);
    expect(times).toEqual(times.toSorted().toReversed());
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const response: request.Response = await request(t.url)
        .get(`/api/audit-events?limit=4${cursor ? `&cursor=${cursor}` : ''}`)
        .set('authorization', `Bearer ${admin}`);
      walked.push(...response.body.events.map((event: Event) => event.id));
      cursor = response.body.pagination.nextCursor;
    } while (cursor);
    expect(walked).toEqual(everything.map((event) => event.id));
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await events(`from=${future}`)).toEqual([]);
    expect((await events(`to=${future}`)).length).toBe(everything.length);
    expect(await events(`actorId=${randomUUID()}`)).toEqual([]);
  });

  it('refuses bad parameters with 400, and everyone without audit:read with 403', async () => {
    for (const bad of [
      'limit=101',
      'page=0',
      'actorId=x',
      'from=yesterday',
      'cursor=%%%',
      'page=1&cursor=abc',
      'action=DROP TABLE',
      'sort=at',
    ]) {
      const response = await request(t.url).get(`/api/audit-events?${bad}`).set('authorization', `Bearer ${admin}`);
      expect({ bad, status: response.status, error: response.body.error }).toEqual({
        bad,
        status: 400,
        error: 'validation_failed',
      });
    }
    const erin = await t.login('erin');
    expect((await request(t.url).get('/api/audit-events').set('authorization', `Bearer ${erin}`)).status).toBe(403);
  });

  it('has no route that changes or deletes an event', async () => {
    const id = (await events())[0].id;
    for (const method of ['put', 'patch', 'delete'] as const) {
      const response = await request(t.url)[method](`/api/audit-events/${id}`).set('authorization', `Bearer ${admin}`);
      expect(response.status).toBe(404);
    }
  });
});
