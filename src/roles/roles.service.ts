import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail, changedFields } from '../audit/audit-trail.js';
import { ApiError } from '../common/errors/error-codes.js';
import { identityKey } from '../common/text/identity-key.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { Role, type RolePermissions } from '../users/entities/role.entity.js';
import { UsersService } from '../users/users.service.js';
import { RoleNameTakenError, RolesRepository } from './roles.repository.js';

export interface RoleInput {
  name?: string;
  permissions?: RolePermissions;
}

const AUDITED_FIELDS = ['name', 'permissions'];

/** The roles every installation starts with (migration DefaultRoles): accounts and commands name them. */
export const BUILT_IN_ROLE_NAMES: readonly string[] = ['admin', 'editor', 'user'];

/**
 * Roles as administered objects: names unique ignoring case and Unicode form, built-in roles keep
 * their names (409 conflict), permissions from the catalogue (checked by the DTO), a role held by
 * anyone cannot be deleted (409 role_in_use), and no permission change may take users:manage or
 * roles:manage from its last active holder (409 last_admin).
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly roles: RolesRepository,
    private readonly transactions: Transactions,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
  ) {}

  list(): Promise<Role[]> {
    return this.roles.findAll();
  }

  async create(input: Required<RoleInput>, context: AuditContext): Promise<Role> {
    const role = Object.assign(new Role(), { id: randomUUID(), name: input.name, permissions: input.permissions });
    return this.write(async (tx) => {
      await this.assertNameFree(tx, input.name, role.id);
      await this.roles.save(tx, role);
      await this.audit.record(tx, context, {
        action: 'role.created',
        targetType: 'role',
        targetId: role.id,
        changes: changedFields({}, role, AUDITED_FIELDS),
      });
      return role;
    });
  }

  async update(id: string, input: RoleInput, context: AuditContext): Promise<Role> {
    return this.write(async (tx) => {
      const demoting = input.permissions !== undefined;
      const holdersBefore = demoting ? await this.users.beginAdministrationChange(tx) : undefined;
      const before = await this.roles.findById(id, tx);
      if (!before) throw notFound(id);
      if (input.name !== undefined && input.name !== before.name && BUILT_IN_ROLE_NAMES.includes(before.name)) {
        throw new ApiError('conflict', `The role ${before.name} is built in: its name cannot change.`);
      }
      const after = Object.assign(new Role(), before, {
        name: input.name ?? before.name,
        permissions: input.permissions ?? before.permissions,
      });
      const changes = changedFields(before, after, AUDITED_FIELDS);
      if (Object.keys(changes).length === 0) return before;
      if (changes.name) await this.assertNameFree(tx, after.name, id);
      await this.roles.save(tx, after);
      if (holdersBefore) await this.users.assertAdministrationRemains(tx, holdersBefore);
      await this.audit.record(tx, context, { action: 'role.updated', targetType: 'role', targetId: id, changes });
      return after;
    });
  }

  async delete(id: string, context: AuditContext): Promise<void> {
    await this.write(async (tx) => {
      const role = await this.roles.findById(id, tx);
      if (!role) throw notFound(id);
      const holders = await this.roles.countHolders(tx, id);
      if (holders > 0) {
        throw new ApiError(
          'role_in_use',
          `The role ${role.name} is held by ${holders} user(s); take it from them first.`,
        );
      }
      await this.roles.delete(tx, id);
      await this.audit.record(tx, context, {
        action: 'role.deleted',
        targetType: 'role',
        targetId: id,
        changes: changedFields(role, {}, AUDITED_FIELDS),
      });
    });
  }

  private async assertNameFree(tx: Tx, name: string, exceptId: string): Promise<void> {
    const key = identityKey(name);
    const existing = await this.roles.names(tx);
    if (existing.some((role) => role.id !== exceptId && identityKey(role.name) === key)) throw nameConflict();
  }

  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.transactions.run(work);
    } catch (error) {
      if (error instanceof RoleNameTakenError) throw nameConflict();
      throw error;
    }
  }
}

function notFound(id: string): ApiError {
  return new ApiError('role_not_found', `No role has the id ${id}.`);
}

function nameConflict(): ApiError {
  return new ApiError('conflict', 'A role with this name already exists (names are compared ignoring case).');
}
