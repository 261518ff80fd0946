// User administration over HTTP (users:manage), on both databases: create, list, get, change,
// deactivate (tokens revoked at once), roles (effective on the next request), password reset,
// the last-admin rule and bad input.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../../src/users/entities/role.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const STRONG = 'amber-Lantern-cobalt-44';

describe.each(databasesUnderTest())('user administration on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let roles: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
    roles = Object.fromEntries((await t.dataSource.getRepository(Role).find()).map((role) => [role.name, role.id]));
  });
  afterAll(async () => {
    await t?.close();
  });

  const as = (token: string) => ({
    get: (path: string) => request(t.url).get(path).set('authorization', `Bearer ${token}`),
    post: (path: string, body: object) => request(t.url).post(path).set('authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) =>
      request(t.url).patch(path).set('authorization', `Bearer ${token}`).send(body),
  });
  const newUser = (username: string, extra: object = {}) => ({
    username,
    email: `${username}@Example.ORG`,
    firstName: 'First',
    lastName: 'Last',
    password: STRONG,
    roleIds: [roles.user],
    ...extra,
  });
  const count = () => t.dataSource.getRepository(User).count();

  it('creates a user: 201 with Location, the domain lower-cased, the roles given; the user can log in', async () => {
    const response = await as(admin).post('/api/users', newUser('carol'));
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe(`/api/users/${response.body.user.id}`);
    expect(response.body.user).toMatchObject({
      username: 'carol',
      email: 'carol@example.org',
      isActive: true,
      roles: [{ id: roles.user, name: 'user', permissions: {} }],
    });
    expect(JSON.stringify(response.body)).not.toMatch(/password|argon2|tokenVersion/i);
    await t.login('carol', STRONG);
    const fetched = await as(admin).get(response.headers.location);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('refuses a username or e-mail equal to an existing one ignoring case: 409 conflict, nothing created', async () => {
    const before = await count();
    const byName = await as(admin).post('/api/users', newUser('ALICE', { email: 'other1@example.org' }));
    expect(byName.status).toBe(409);
    expect(byName.body).toEqual({ error: 'conflict', details: expect.stringMatching(/username/) });
    const byEmail = await as(admin).post('/api/users', newUser('someone', { email: 'Bob@EXAMPLE.com' }));
    expect(byEmail.status).toBe(409);
    expect(byEmail.body.details).toMatch(/email/);
    expect(await count()).toBe(before);
  });

  it('refuses a weak password with 400 weak_password, and unknown role ids with 400 naming them', async () => {
    const before = await count();
    const weak = await as(admin).post('/api/users', newUser('frank', { password: 'frank-password' }));
    expect(weak.status).toBe(400);
    expect(weak.body.error).toBe('weak_password');
    const unknown = randomUUID();
    const badRole = await as(admin).post('/api/users', newUser('frank', { roleIds: [unknown] }));
    expect(badRole.status).toBe(400);
    expect(badRole.body).toEqual({ error: 'validation_failed', details: expect.stringContaining(unknown) });
    expect(await count()).toBe(before);
  });

  it.each([
    [{ email: 'not-an-email' }, /email must be an e-mail address/],
    [{ username: 'a\u202eb' }, /username must not contain control characters/],
    [{ username: ' padded' }, /username must not start or end with whitespace/],
    [{ username: 'x'.repeat(256) }, /username must be shorter than or equal to 255/],
    [{ firstName: '' }, /firstName must be longer than or equal to 1/],
    [{ roleIds: ['nope'] }, /roleIds entries must be UUIDs/],
    [{ roleIds: 'x' }, /roleIds must be an array/],
    [{ isAdmin: true }, /property isAdmin should not exist/],
    [{ toString: 'x' }, /property toString should not exist/],
    [{ password: 'é'.repeat(513) }, /password must be at most 1024 bytes/],
  ])('validates the create body %#', async (change, details) => {
    const before = await count();
    const response = await as(admin).post('/api/users', newUser('gina', change));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringMatching(details) });
    expect(await count()).toBe(before);
  });

  it('lists users: q matches the start of username, e-mail, first or last name ignoring case; filters; bounds', async () => {
    await as(admin).post('/api/users', newUser('henrietta', { firstName: 'Zelda', lastName: 'Quill' }));
    const names = async (query: string) => {
      const response = await as(admin).get(`/api/users?${query}`);
      expect(response.status).toBe(200);
      return response.body.users.map((user: { username: string }) => user.username);
    };
    expect(await names('q=HENR')).toEqual(['henrietta']);
    expect(await names('q=zel')).toEqual(['henrietta']);
    expect(await names('q=QUI')).toEqual(['henrietta']);
    expect(await names('q=henrietta%40example')).toEqual(['henrietta']);
    expect(await names('q=enri')).toEqual([]); // the start only
    expect(await names('q=%25')).toEqual([]); // LIKE wildcards are literal
    expect(await names(`roleId=${roles.admin}`)).toEqual(['admin']);
    expect(await names(`roleId=${roles.editor.toUpperCase()}`)).toEqual(['erin']);
    const page = await as(admin).get('/api/users?limit=2&page=2');
    expect(page.body.pagination).toMatchObject({ page: 2, limit: 2, total: await count() });
    expect(page.body.users).toHaveLength(2);
    for (const bad of ['limit=101', 'limit=0', 'page=0', 'isActive=yes', 'roleId=x', 'q=', 'q=a&q=b', 'sort=name']) {
      const response = await as(admin).get(`/api/users?${bad}`);
      expect({ bad, status: response.status, error: response.body.error }).toEqual({
        bad,
        status: 400,
        error: 'validation_failed',
      });
    }
  });

  it('changes fields; deactivation revokes every token at once and isActive=false filters', async () => {
    const created = (await as(admin).post('/api/users', newUser('ivan'))).body.user;
    const token = await t.login('ivan', STRONG);
    expect((await as(token).get('/api/auth/me')).status).toBe(200);
    const changed = await as(admin).patch(`/api/users/${created.id.toUpperCase()}`, {
      firstName: 'Ivo',
      email: 'ivo@EXAMPLE.net',
      isActive: false,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.user).toMatchObject({
      id: created.id,
      firstName: 'Ivo',
      email: 'ivo@example.net',
      isActive: false,
    });
    const after = await as(token).get('/api/auth/me');
    expect(after.status).toBe(401);
    await expect(t.login('ivan', STRONG)).rejects.toThrow(/401/);
    const inactive = await as(admin).get('/api/users?isActive=false');
    expect(inactive.body.users.map((user: { username: string }) => user.username)).toEqual(['ivan']);
    // Reactivated, the account logs in again.
    expect((await as(admin).patch(`/api/users/${created.id}`, { isActive: true })).status).toBe(200);
    await t.login('ivan', STRONG);
  });

  it('a role change takes effect on the user’s next request, with the same token', async () => {
    const created = (await as(admin).post('/api/users', newUser('judy'))).body.user;
    const token = await t.login('judy', STRONG);
    expect((await as(token).get('/api/roles')).status).toBe(403);
    expect((await as(admin).patch(`/api/users/${created.id}`, { roleIds: [roles.admin] })).status).toBe(200);
    expect((await as(token).get('/api/roles')).status).toBe(200);
    expect((await as(admin).patch(`/api/users/${created.id}`, { roleIds: [] })).body.user.roles).toEqual([]);
    expect((await as(token).get('/api/roles')).status).toBe(403);
  });

  it('PATCH refuses null, unknown fields, a taken e-mail and an unknown user', async () => {
    const bob = t.user('bob').id;
    expect((await as(admin).patch(`/api/users/${bob}`, { firstName: null })).status).toBe(400);
    expect((await as(admin).patch(`/api/users/${bob}`, { username: 'robert' })).body).toEqual({
      error: 'validation_failed',
      details: 'property username should not exist',
    });
    const taken = await as(admin).patch(`/api/users/${bob}`, { email: 'ALICE@example.com' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('conflict');
    expect((await as(admin).patch(`/api/users/${randomUUID()}`, { firstName: 'X' })).body.error).toBe('user_not_found');
    expect((await as(admin).get('/api/users/not-a-uuid')).body).toEqual({
      error: 'validation_failed',
      details: 'userId must be a UUID',
    });
  });

  it('an administrator sets a password: 204, the policy applies, the user’s tokens are revoked', async () => {
    const token = await t.login('bob');
    const weak = await as(admin).post(`/api/users/${t.user('bob').id}/password`, { newPassword: 'bob12345678' });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toBe('weak_password');
    expect((await as(token).get('/api/auth/me')).status).toBe(200);
    const set = await as(admin).post(`/api/users/${t.user('bob').id}/password`, { newPassword: STRONG });
    expect(set.status).toBe(204);
    expect((await as(token).get('/api/auth/me')).status).toBe(401);
    await t.login('bob', STRONG);
    expect((await as(admin).post(`/api/users/${randomUUID()}/password`, { newPassword: STRONG })).status).toBe(404);
    await as(admin).post(`/api/users/${t.user('bob').id}/password`, { newPassword: TEST_PASSWORD });
  });

  it('nobody deactivates themselves, and the last active holder of users:manage cannot lose it (409 last_admin)', async () => {
    const adminId = t.user('admin').id;
    const self = await as(admin).patch(`/api/users/${adminId}`, { isActive: false });
    expect(self.status).toBe(409);
    expect(self.body.error).toBe('last_admin');
    // judy was demoted above; the seeded admin is the only active holder.
    const demote = await as(admin).patch(`/api/users/${adminId}`, { roleIds: [roles.user] });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ error: 'last_admin', details: expect.stringMatching(/users:manage/) });
    expect((await as(admin).get('/api/roles')).status).toBe(200); // still an administrator
    // With a second administrator, the first may step down, and then the second is the last.
    const second = (await as(admin).post('/api/users', newUser('kate', { roleIds: [roles.admin] }))).body.user;
    const kate = await t.login('kate', STRONG);
    expect((await as(kate).patch(`/api/users/${adminId}`, { roleIds: [roles.user] })).status).toBe(200);
    expect((await as(kate).patch(`/api/users/${second.id}`, { roleIds: [] })).body.error).toBe('last_admin');
    expect((await as(kate).patch(`/api/users/${adminId}`, { roleIds: [roles.admin] })).status).toBe(200);
    admin = await t.login('admin');
    expect((await as(admin).patch(`/api/users/${second.id}`, { isActive: false })).status).toBe(200);
  });

  describe('users:manage alone grants and touches nothing beyond its holder’s permissions (403 forbidden)', () => {
    let uma: string;
    let umaId: string;
    let accountsRole: string;
    beforeAll(async () => {
      const role = await request(t.url)
        .post('/api/roles')
        .set('authorization', `Bearer ${admin}`)
        .send({ name: 'accounts', permissions: { users: ['manage'] } });
      accountsRole = role.body.role.id;
      umaId = (await as(admin).post('/api/users', newUser('uma', { roleIds: [accountsRole] }))).body.user.id;
      uma = await t.login('uma', STRONG);
    });
    const rolesOf = async (id: string) =>
      (await t.dataSource.getRepository(User).findOneOrFail({ where: { id }, relations: { roles: true } })).roles
        .map((role) => role.name)
        .sort();

    it('cannot give themselves the admin role', async () => {
      const response = await as(uma).patch(`/api/users/${umaId}`, { roleIds: [accountsRole, roles.admin] });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        error: 'forbidden',
        details: expect.stringMatching(/cannot grant the role\(s\) admin: .*roles:manage.*which you do not hold/),
      });
      expect(await rolesOf(umaId)).toEqual(['accounts']);
    });

    it('cannot create a user holding a role beyond their permissions; may create one within them', async () => {
      const before = await count();
      const asAdmin = await as(uma).post('/api/users', newUser('mallory', { roleIds: [roles.admin] }));
      expect(asAdmin.status).toBe(403);
      expect(asAdmin.body.details).toMatch(/cannot grant the role\(s\) admin/);
      const asEditor = await as(uma).post('/api/users', newUser('mallory', { roleIds: [roles.user, roles.editor] }));
      expect(asEditor.status).toBe(403);
      expect(asEditor.body.details).toMatch(/role\(s\) editor: they hold documents:/);
      expect(await count()).toBe(before);
      const peer = await as(uma).post('/api/users', newUser('mallory', { roleIds: [accountsRole, roles.user] }));
      expect(peer.status).toBe(201);
    });

    it('cannot set the password of, deactivate, edit or re-role a user holding more than they do', async () => {
      const adminId = t.user('admin').id;
      const password = await as(uma).post(`/api/users/${adminId}/password`, { newPassword: STRONG });
      expect(password.status).toBe(403);
      expect(password.body.details).toMatch(/cannot change the account admin: it holds .*roles:manage/);
      await t.login('admin'); // the password is unchanged
      expect((await as(admin).get('/api/auth/me')).status).toBe(200); // and no token was revoked
      for (const body of [{ isActive: false }, { firstName: 'Mallory' }, { roleIds: [accountsRole] }]) {
        const response = await as(uma).patch(`/api/users/${adminId}`, body);
        expect(response.status, JSON.stringify(body)).toBe(403);
        expect(response.body.error).toBe('forbidden');
      }
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: adminId });
      expect(stored).toMatchObject({ isActive: true, firstName: 'Ada' });
      expect(await rolesOf(adminId)).toContain('admin');
    });

    it('manages users holding no more than they do', async () => {
      const target = (await as(uma).post('/api/users', newUser('nadia'))).body.user.id;
      expect((await as(uma).patch(`/api/users/${target}`, { firstName: 'Nadia' })).status).toBe(200);
      expect((await as(uma).post(`/api/users/${target}/password`, { newPassword: STRONG })).status).toBe(204);
      expect((await as(uma).patch(`/api/users/${target}`, { isActive: false })).status).toBe(200);
    });
  });
});
