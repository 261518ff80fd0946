import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../../test/support/databases.js';
import { openMigratedDataSource, type MigratedDataSource } from '../../test/support/migrated-data-source.js';
import { identityKey } from '../common/text/identity-key.js';
import { Role } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { IdentityTakenError, UsersRepository } from './users.repository.js';

describe.each(databasesUnderTest())('UsersRepository on %s', (kind) => {
  let dataSource: DataSource;
  let database: MigratedDataSource | undefined;
  let repository: UsersRepository;
  let roles: Role[];

  const newUser = (username: string, email = `${username}@example.com`) =>
    Object.assign(new User(), {
      id: randomUUID(),
      username,
      usernameKey: identityKey(username),
      email,
      emailKey: identityKey(email),
      firstName: 'F',
      lastName: 'L',
      passwordHash: `hash-of-${username}`,
      isActive: true,
      tokenVersion: 0,
      createdAt: new Date('2026-03-04T05:06:07.890Z'),
      roles: [],
    });
  const stored = (id: string) =>
    dataSource
      .getRepository(User)
      .findOneOrFail({ where: { id }, select: { id: true, isActive: true, tokenVersion: true, passwordHash: true } });

  beforeAll(async () => {
    database = await openMigratedDataSource(kind);
    dataSource = database.dataSource;
    repository = new UsersRepository(dataSource.getRepository(User), dataSource.getRepository(Role));
    roles = await repository.findRolesByName(['admin', 'user']);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('finds the default roles by name and nothing for unknown names', async () => {
    expect(roles.map((role) => role.name).sort()).toEqual(['admin', 'user']);
    await expect(repository.findRolesByName(['nope'])).resolves.toEqual([]);
    await expect(repository.findRolesByName([])).resolves.toEqual([]);
  });

  it('inserts a user with roles; login and the token check read it back converted', async () => {
    const user = Object.assign(newUser('carla'), { roles });
    await repository.insert(dataSource.manager, user);

    const login = await repository.findForLogin('carla');
    expect(login).toBeInstanceOf(User);
    expect(login).toMatchObject({
      id: user.id,
      username: 'carla',
      email: 'carla@example.com',
      passwordHash: 'hash-of-carla',
      isActive: true,
      tokenVersion: 0,
      createdAt: user.createdAt,
    });
    expect(login!.roles.map((role) => role.name).sort()).toEqual(['admin', 'user']);
    expect(login!.roles.find((role) => role.name === 'admin')!.permissions).toEqual(
      roles.find((role) => role.name === 'admin')!.permissions,
    );

    const context = await repository.findAuthContext(user.id);
    expect(context).toEqual({
      id: user.id,
      username: 'carla',
      isActive: true,
      tokenVersion: 0,
      roles: expect.arrayContaining(roles.map((role) => ({ name: role.name, permissions: role.permissions }))),
    });
    expect(context!.roles).toHaveLength(2);
    await expect(repository.findAuthContext(randomUUID())).resolves.toBeNull();
  });

  it("reads the user's project ids with the session when asked, in the same statement", async () => {
    const user = Object.assign(newUser('pia'), { roles });
    await repository.insert(dataSource.manager, user);
    const projects = [randomUUID(), randomUUID(), randomUUID()];
    for (const [index, id] of projects.entries()) {
      await dataSource
        .getRepository('Project')
        .insert({ id, name: `p${index}`, description: '', createdAt: new Date() });
      await dataSource
        .getRepository('ProjectMember')
        .insert({ projectId: id, userId: user.id, role: 'viewer', createdAt: new Date() });
    }
    const context = await repository.findAuthContext(user.id, { memberships: true });
    expect(context!.projectIds!.sort()).toEqual(projects.sort());
    expect(context!.roles).toHaveLength(2);
    expect((await repository.findAuthContext(user.id))!.projectIds).toBeUndefined();
    const loner = newUser('lone');
    await repository.insert(dataSource.manager, loner);
    expect((await repository.findAuthContext(loner.id, { memberships: true }))!.projectIds).toEqual([]);
  });

  it('matches usernames exactly: no trailing spaces, no other case', async () => {
    await repository.insert(dataSource.manager, newUser('dora'));
    for (const lookalike of ['dora ', 'dora   ', 'Dora', 'DORA', ' dora']) {
      await expect(repository.findForLogin(lookalike)).resolves.toBeNull();
      await expect(repository.findByUsername(lookalike)).resolves.toBeNull();
    }
    await expect(repository.findForLogin('dora')).resolves.toMatchObject({ username: 'dora' });
    await expect(repository.findByUsername('dora')).resolves.toMatchObject({ username: 'dora' });
  });

  it('tells which identity key is taken', async () => {
    await repository.insert(dataSource.manager, newUser('émile', 'emile@example.com'));
    await expect(repository.identityTaken(identityKey('Émile'), identityKey('other@example.com'))).resolves.toBe(
      'username',
    );
    await expect(repository.identityTaken(identityKey('someone'), identityKey('EMILE@example.com'))).resolves.toBe(
      'email',
    );
    await expect(repository.identityTaken(identityKey('someone'), identityKey('else@example.com'))).resolves.toBe(
      undefined,
    );
  });

  it('turns a unique index refusing a user into IdentityTakenError naming the field', async () => {
    await repository.insert(dataSource.manager, newUser('frank', 'frank@example.com'));
    const byUsername = await repository
      .insert(dataSource.manager, newUser('FRANK', 'other-frank@example.com'))
      .catch((e: unknown) => e);
    expect(byUsername).toBeInstanceOf(IdentityTakenError);
    expect(byUsername).toMatchObject({ field: 'username' });
    const byEmail = await repository
      .insert(dataSource.manager, newUser('franky', 'Frank@Example.com'))
      .catch((e: unknown) => e);
    expect(byEmail).toBeInstanceOf(IdentityTakenError);
    expect(byEmail).toMatchObject({ field: 'email' });
    await expect(repository.findForLogin('FRANK')).resolves.toBeNull();
  });

  it('deactivates, revokes tokens and replaces the password hash, each bumping the token version', async () => {
    const user = newUser('gina');
    await repository.insert(dataSource.manager, user);
    await repository.revokeTokens(dataSource.manager, user.id);
    await expect(stored(user.id)).resolves.toMatchObject({ isActive: true, tokenVersion: 1 });
    await repository.setPasswordHash(dataSource.manager, user.id, 'new-hash');
    await expect(stored(user.id)).resolves.toMatchObject({ passwordHash: 'new-hash', tokenVersion: 2 });
    await repository.updateFields(dataSource.manager, user.id, { isActive: false });
    await expect(stored(user.id)).resolves.toMatchObject({ isActive: false, tokenVersion: 3 });
    await expect(repository.findAuthContext(user.id)).resolves.toMatchObject({ isActive: false, tokenVersion: 3 });
  });
});
