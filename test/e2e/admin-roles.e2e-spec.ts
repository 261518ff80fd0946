// Role administration over HTTP (roles:manage), on both databases.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ROLE_NAMES } from '../../src/roles/roles.service.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('role administration on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, token = admin) => {
    const pending = request(t.url)[method](path).set('authorization', `Bearer ${token}`);
    return body ? pending.send(body) : pending;
  };
  const count = () => t.dataSource.getRepository(Role).count();
  const roleId = async (name: string) => (await t.dataSource.getRepository(Role).findOneByOrFail({ name })).id;

  it('lists, creates (201 + Location), changes and deletes a role', async () => {
    const list = await call('get', '/api/roles');
    expect(list.status).toBe(200);
    expect(list.body.roles.map((role: { name: string }) => role.name)).toEqual(['admin', 'editor', 'user']);
    const created = await call('post', '/api/roles', { name: 'auditor', permissions: { audit: ['read'] } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/roles/${created.body.role.id}`);
    expect(created.body.role).toMatchObject({ name: 'auditor', permissions: { audit: ['read'] } });
    const changed = await call('patch', `/api/roles/${created.body.role.id}`, {
      permissions: { audit: ['read'], documents: ['read'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toMatchObject({ name: 'auditor', permissions: { audit: ['read'], documents: ['read'] } });
    expect((await call('delete', `/api/roles/${created.body.role.id}`)).status).toBe(204);
    expect((await call('delete', `/api/roles/${created.body.role.id}`)).body.error).toBe('role_not_found');
  });

  it.each([
    [{ name: 'x', permissions: { widgets: ['read'] } }, /permissions\.widgets is not a resource of the catalogue/],
    [{ name: 'x', permissions: { documents: ['read', 'fly'] } }, /permissions\.documents contains "fly"/],
    [{ name: 'x', permissions: { documents: 'read' } }, /permissions\.documents must be an array/],
    [{ name: 'x', permissions: { users: ['manage', 'manage'] } }, /lists "manage" twice/],
    [{ name: 'x', permissions: [] }, /permissions must be an object/],
    [{ name: 'x', permissions: { toString: ['read'] } }, /permissions\.toString is not a resource/],
    [{ name: '', permissions: {} }, /name must be longer than or equal to 1/],
    [{ name: 'x\u0000', permissions: {} }, /name must not contain control characters/],
    [{ name: 'x', permissions: {}, id: randomUUID() }, /property id should not exist/],
  ])('refuses a bad body with 400 naming the entry %#', async (body, details) => {
    const before = await count();
    const response = await call('post', '/api/roles', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringMatching(details) });
    expect(await count()).toBe(before);
  });

  it('names are unique ignoring case: 409 conflict on create and rename', async () => {
    expect((await call('post', '/api/roles', { name: 'EDITOR', permissions: {} })).status).toBe(409);
    const reviewer = await call('post', '/api/roles', { name: 'reviewer', permissions: {} });
    const rename = await call('patch', `/api/roles/${reviewer.body.role.id}`, { name: 'User' });
    expect(rename.status).toBe(409);
    expect(rename.body.error).toBe('conflict');
  });

  it('a role someone holds cannot be deleted: 409 role_in_use', async () => {
    const response = await call('delete', `/api/roles/${await roleId('editor')}`);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: 'role_in_use', details: expect.stringMatching(/editor.*1 user/) });
  });

  it('taking users:manage from the role of its last active holder is 409 last_admin; holders see changes next request', async () => {
    const adminRole = await roleId('admin');
    const demote = await call('patch', `/api/roles/${adminRole}`, { permissions: { roles: ['manage'] } });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe('last_admin');
    // The editor role gains roles:manage: erin's existing token may now list roles.
    const erin = await t.login('erin');
    expect((await call('get', '/api/roles', undefined, erin)).status).toBe(403);
    const editorRole = await roleId('editor');
    await call('patch', `/api/roles/${editorRole}`, {
      permissions: { documents: ['read', 'update'], roles: ['manage'] },
    });
    expect((await call('get', '/api/roles', undefined, erin)).status).toBe(200);
  });

  it('taking roles:manage from the role of its last active holder is 409 last_admin, naming roles:manage', async () => {
    // erin's editor role was given roles:manage above: take it back, so admin is the last holder again.
    const editorRole = await roleId('editor');
    const restore = await call('patch', `/api/roles/${editorRole}`, { permissions: { documents: ['read', 'update'] } });
    expect(restore.status).toBe(200);
    const adminRole = await roleId('admin');
    const before = (await call('get', '/api/roles')).body.roles.find((role: { name: string }) => role.name === 'admin');
    const withoutRoles = Object.fromEntries(
      Object.entries(before.permissions as Record<string, string[]>).filter(([resource]) => resource !== 'roles'),
    );
    const response = await call('patch', `/api/roles/${adminRole}`, { permissions: withoutRoles });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: 'last_admin', details: expect.stringMatching(/roles:manage/) });
    const after = await t.dataSource.getRepository(Role).findOneByOrFail({ id: adminRole });
    expect(after.permissions).toEqual(before.permissions);
  });

  it('the last active holder of roles:manage can be neither demoted nor deactivated, even by the operator', async () => {
    // A second holder of users:manage, so only roles:manage is at stake.
    const accounts = await call('post', '/api/roles', { name: 'accounts', permissions: { users: ['manage'] } });
    const users = t.app.get(UsersService);
    const uma = await users.create({
      username: 'uma',
      email: 'uma@example.org',
      firstName: 'Uma',
      lastName: 'Accounts',
      password: 'amber-Lantern-cobalt-44',
      roleIds: [accounts.body.role.id],
    });
    expect(uma.roles.map((role) => role.name)).toEqual(['accounts']);
    const adminId = t.user('admin').id;
    const demote = await request(t.url)
      .patch(`/api/users/${adminId}`)
      .set('authorization', `Bearer ${admin}`)
      .send({ roleIds: [accounts.body.role.id] });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ error: 'last_admin', details: expect.stringMatching(/roles:manage/) });
    await expect(users.deactivate('admin')).rejects.toMatchObject({
      code: 'last_admin',
      details: expect.stringMatching(/roles:manage/),
    });
    expect((await call('get', '/api/roles')).status).toBe(200);
  });

  it.each(BUILT_IN_ROLE_NAMES)('the built-in role %s keeps its name: 409 conflict', async (name) => {
    const id = await roleId(name);
    const rename = await call('patch', `/api/roles/${id}`, { name: `${name}-renamed` });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({
      error: 'conflict',
      details: `The role ${name} is built in: its name cannot change.`,
    });
    expect((await call('patch', `/api/roles/${id}`, { name })).status).toBe(200);
    expect(await roleId(name)).toBe(id);
  });
});
