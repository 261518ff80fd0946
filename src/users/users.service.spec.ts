import { Test } from '@nestjs/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditTrail } from '../audit/audit-trail.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { Role, type RolePermissions } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { PasswordHasher } from './password-hasher.service.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

const STRONG = 'amber-Lantern-cobalt-44';
const role = (name: string, permissions: RolePermissions) =>
  Object.assign(new Role(), { id: `${name}-id`, name, permissions });
const ADMIN = role('admin', { users: ['manage'], roles: ['manage'], documents: ['read'] });
const ACCOUNTS = role('accounts', { users: ['manage'] });
const PLAIN = role('user', {});
const user = (username: string, roles: Role[]) =>
  Object.assign(new User(), {
    id: `${username}-id`,
    username,
    email: `${username}@example.org`,
    roles,
    isActive: true,
  });
const accountsManager = { id: 'uma-id', username: 'uma', roles: [ACCOUNTS] };

describe('UsersService', () => {
  let service: UsersService;
  let repository: Record<string, ReturnType<typeof vi.fn>>;
  let holders: Record<string, number[]>;

  beforeEach(async () => {
    holders = {};
    const users = new Map([
      ['admin-id', user('admin', [ADMIN])],
      ['bob-id', user('bob', [PLAIN])],
    ]);
    const roles = [ADMIN, ACCOUNTS, PLAIN];
    repository = {
      findRolesByName: vi.fn(async (names: string[]) => roles.filter((r) => names.includes(r.name))),
      findRolesByIds: vi.fn(async (ids: string[]) => roles.filter((r) => ids.includes(r.id))),
      identityTaken: vi.fn(async () => undefined),
      findById: vi.fn(async (id: string) => users.get(id) ?? null),
      insert: vi.fn(async () => undefined),
      updateFields: vi.fn(async () => undefined),
      replaceRoles: vi.fn(async () => undefined),
      setPasswordHash: vi.fn(async () => 1),
      emailTaken: vi.fn(async () => false),
      lockAdministration: vi.fn(async () => undefined),
      // Each call answers the next count queued for the permission (before, then after the change).
      countActiveHolders: vi.fn(async (_tx: Tx, permission: string) => holders[permission]?.shift() ?? 1),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        UsersService,
        { provide: UsersRepository, useValue: repository },
        { provide: Transactions, useValue: { run: (work: (tx: Tx) => Promise<unknown>) => work({} as Tx) } },
        { provide: PasswordHasher, useValue: { hash: async () => 'hash' } },
        { provide: AuditTrail, useValue: { record: async () => undefined } },
      ],
    }).compile();
    service = moduleRef.get(UsersService);
  });

  const input = (roleIds: string[]) => ({
    username: 'mallory',
    email: 'mallory@example.org',
    firstName: 'Mal',
    lastName: 'Lory',
    password: STRONG,
    roleIds,
  });

  describe('no escalation', () => {
    it('refuses to create a user holding a role with a permission the actor lacks', async () => {
      await expect(service.create(input([ADMIN.id]), undefined, accountsManager)).rejects.toMatchObject({
        code: 'forbidden',
        details: expect.stringMatching(/role\(s\) admin: they hold documents:read, roles:manage/),
      });
      expect(repository.insert).not.toHaveBeenCalled();
    });

    it('creates a user whose roles the actor covers, and lets the operator grant anything', async () => {
      await expect(service.create(input([ACCOUNTS.id, PLAIN.id]), undefined, accountsManager)).resolves.toBeInstanceOf(
        User,
      );
      await expect(service.create(input([ADMIN.id]))).resolves.toBeInstanceOf(User);
    });

    it('refuses to grant the actor themselves a stronger role', async () => {
      await expect(service.update('bob-id', { roleIds: [ADMIN.id] }, undefined, accountsManager)).rejects.toMatchObject(
        {
          code: 'forbidden',
        },
      );
      expect(repository.replaceRoles).not.toHaveBeenCalled();
    });

    it('refuses to edit, deactivate or set the password of a user holding more than the actor', async () => {
      for (const change of [{ firstName: 'X' }, { isActive: false }, { roleIds: [PLAIN.id] }]) {
        await expect(service.update('admin-id', change, undefined, accountsManager)).rejects.toMatchObject({
          code: 'forbidden',
          details: expect.stringMatching(/account admin: it holds documents:read, roles:manage/),
        });
      }
      await expect(
        service.setPassword('admin-id', STRONG, undefined, { actor: accountsManager }),
      ).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(repository.updateFields).not.toHaveBeenCalled();
      expect(repository.setPasswordHash).not.toHaveBeenCalled();
    });

    it('manages a user holding no more than the actor', async () => {
      await expect(
        service.update('bob-id', { firstName: 'Robert' }, undefined, accountsManager),
      ).resolves.toBeDefined();
      await expect(service.setPassword('bob-id', STRONG, undefined, { actor: accountsManager })).resolves.toBe(1);
    });
  });

  describe('last administrator', () => {
    it('refuses a change that leaves nobody holding roles:manage', async () => {
      holders['roles:manage'] = [1, 0];
      await expect(service.update('admin-id', { roleIds: [ACCOUNTS.id] })).rejects.toMatchObject({
        code: 'last_admin',
        details: expect.stringMatching(/roles:manage/),
      });
    });

    it('refuses a change that leaves nobody holding users:manage', async () => {
      holders['users:manage'] = [1, 0];
      await expect(service.update('admin-id', { isActive: false })).rejects.toMatchObject({ code: 'last_admin' });
    });

    it('lets a change through while another holder remains, and counts only for demoting changes', async () => {
      await expect(service.update('admin-id', { roleIds: [ACCOUNTS.id] })).resolves.toBeDefined();
      repository.countActiveHolders.mockClear();
      await service.update('bob-id', { firstName: 'Robert' });
      expect(repository.countActiveHolders).not.toHaveBeenCalled();
    });
  });
});
