import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CLI_AUDIT_CONTEXT, type AuditContext } from '../audit/audit-context.js';
import { AuditTrail, changedFields } from '../audit/audit-trail.js';
import type { Permission } from '../common/authz/permission-catalogue.js';
import { ApiError } from '../common/errors/error-codes.js';
import { identityKey } from '../common/text/identity-key.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { Role } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { assertMayGrant, assertMayManage, OPERATOR, type Actor } from './grants.js';
import { PasswordHasher } from './password-hasher.service.js';
import { assertPasswordPolicy } from './password-policy.js';
import {
  IdentityTakenError,
  UsersRepository,
  type AuthContext,
  type IdentityField,
  type UserChanges,
  type UserSettingsChanges,
} from './users.repository.js';
import type { UpdateUserSettingsDto } from './dto/user-settings.dto.js';

export type { AuthContext } from './users.repository.js';
export { OPERATOR, type Actor } from './grants.js';

export interface CreateUserInput {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  /** Roles by name (the CLI) or by id (the API); both may be given. */
  roleNames?: string[];
  roleIds?: string[];
}

export interface UpdateUserInput {
  email?: string;
  firstName?: string;
  lastName?: string;
  isActive?: boolean;
  roleIds?: string[];
}

export interface UserListQuery {
  q?: string;
  isActive?: boolean;
  roleId?: string;
  page: number;
  limit: number;
}

/** The fields an audit event of a user records (never the password hash or the token version). */
const AUDITED_FIELDS = ['username', 'email', 'firstName', 'lastName', 'isActive', 'roleIds'];

/** The permissions whose last active holder may not lose them: without them nobody could fix accounts or roles. */
export const ADMINISTRATION: readonly Permission[] = ['users:manage', 'roles:manage'];

/** Active holders of each administration permission, counted before a change. */
export type AdministrationHolders = ReadonlyMap<Permission, number>;

/** An e-mail address as stored: the domain (case-insensitive by RFC 5321) in lower case, the local part as typed. */
export function normaliseEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email : `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`;
}

function auditView(user: User): Record<string, unknown> {
  return {
    username: user.username,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    isActive: user.isActive,
    roleIds: (user.roles ?? []).map((role) => role.id).sort(),
  };
}

/**
 * Every change takes the Actor last: an API route passes its caller, and leaving it out means the
 * operator at the command line (the CLI, the seed and test fixtures).
 *
 * The rules of user accounts, shared by the API (UsersController, AuthController) and the
 * command-line tools: identity uniqueness, the password policy, token revocation, no escalation
 * (an actor grants and touches only what their own permissions cover), the last-admin rule, and an
 * audit event in the same transaction as every change.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly transactions: Transactions,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditTrail,
  ) {}

  /** For login: the user named exactly `username`, with roles and the password hash. */
  findForLogin(username: string): Promise<User | null> {
    return this.users.findForLogin(username);
  }

  /** For every authenticated request: what authorization needs, in one query. */
  findAuthContext(id: string, options?: { memberships?: boolean }): Promise<AuthContext | null> {
    return this.users.findAuthContext(id, options);
  }

  /** The user named exactly `username` (for the administration commands), without roles. */
  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /** The user with roles; 404 user_not_found. */
  async get(id: string): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw notFound(id);
    return user;
  }

  /** Changes the user's own attention settings (validated by UpdateUserSettingsDto); answers the user. */
  async updateSettings(id: string, input: UpdateUserSettingsDto): Promise<User> {
    const changes: UserSettingsChanges = {};
    if (input.timezone !== undefined) changes.timezone = input.timezone;
    if (input.urgentBypass !== undefined) changes.urgentBypass = input.urgentBypass;
    if (input.quietHours !== undefined) {
      changes.quietHoursStart = input.quietHours?.start ?? null;
      changes.quietHoursEnd = input.quietHours?.end ?? null;
    }
    await this.transactions.run((tx) => this.users.updateSettings(tx, id, changes));
    return this.get(id);
  }

  /** Holds the user's e-mails until `until` (null: no longer). */
  async snooze(id: string, until: Date | null): Promise<void> {
    await this.transactions.run((tx) => this.users.updateSettings(tx, id, { snoozedUntil: until }));
  }

  async list(query: UserListQuery): Promise<{ users: User[]; total: number }> {
    const prefix = query.q === undefined ? undefined : { key: identityKey(query.q), lower: query.q.toLowerCase() };
    return this.users.list(
      { prefix, isActive: query.isActive, roleId: query.roleId },
      (query.page - 1) * query.limit,
      query.limit,
    );
  }

  /**
   * Creates an active user. Roles must exist (400 validation_failed) and hold nothing the actor
   * lacks (403 forbidden); the password must pass the policy (400 weak_password). A username or
   * e-mail equal to an existing one after identityKey() is 409 conflict, naming the field; the
   * unique indexes on the keys refuse what a concurrent writer slips past this check.
   */
  async create(
    input: CreateUserInput,
    context: AuditContext = CLI_AUDIT_CONTEXT,
    actor: Actor = OPERATOR,
  ): Promise<User> {
    const email = normaliseEmail(input.email);
    const roles = await this.resolveRoles(input.roleNames ?? [], input.roleIds ?? []);
    assertMayGrant(actor, roles);

    const usernameKey = identityKey(input.username);
    const emailKey = identityKey(email);
    const taken = await this.users.identityTaken(usernameKey, emailKey);
    if (taken) throw identityConflict(taken);
    await assertPasswordPolicy(input.password, { ...input, email });

    const user = Object.assign(new User(), {
      id: randomUUID(),
      username: input.username,
      usernameKey,
      email,
      emailKey,
      firstName: input.firstName,
      lastName: input.lastName,
      passwordHash: await this.hasher.hash(input.password),
      isActive: true,
      tokenVersion: 0,
      createdAt: new Date(),
      roles,
    });
    try {
      await this.transactions.run(async (tx) => {
        await this.users.insert(tx, user);
        await this.audit.record(tx, context, {
          action: 'user.created',
          targetType: 'user',
          targetId: user.id,
          changes: changedFields({}, auditView(user), AUDITED_FIELDS),
        });
      });
    } catch (error) {
      if (error instanceof IdentityTakenError) throw identityConflict(error.field);
      throw error;
    }
    return user;
  }

  /**
   * Changes the given fields. Deactivation ends every token at once; new roles apply from the
   * user's next request. The actor may change only a user holding nothing beyond their own
   * permissions, and grant only such roles (403 forbidden). Nobody deactivates themselves, and no
   * change leaves no active holder of an administration permission (409 last_admin).
   */
  async update(
    id: string,
    input: UpdateUserInput,
    context: AuditContext = CLI_AUDIT_CONTEXT,
    actor: Actor = OPERATOR,
  ): Promise<User> {
    if (input.isActive === false && context.actorId === id) {
      throw new ApiError('last_admin', 'You cannot deactivate your own account; ask another administrator.');
    }
    const roles = input.roleIds === undefined ? undefined : await this.resolveRoles([], input.roleIds);
    if (roles) assertMayGrant(actor, roles);
    try {
      return await this.transactions.run(async (tx) => {
        const demoting = input.isActive === false || roles !== undefined;
        const holdersBefore = demoting ? await this.beginAdministrationChange(tx) : undefined;

        const before = await this.users.findById(id, tx);
        if (!before) throw notFound(id);
        assertMayManage(actor, before);
        const changes: UserChanges = {};
        if (input.email !== undefined && normaliseEmail(input.email) !== before.email) {
          changes.email = normaliseEmail(input.email);
          changes.emailKey = identityKey(changes.email);
          if (await this.users.emailTaken(tx, changes.emailKey, id)) throw identityConflict('email');
        }
        if (input.firstName !== undefined && input.firstName !== before.firstName) changes.firstName = input.firstName;
        if (input.lastName !== undefined && input.lastName !== before.lastName) changes.lastName = input.lastName;
        if (input.isActive !== undefined && input.isActive !== before.isActive) changes.isActive = input.isActive;
        await this.users.updateFields(tx, id, changes);
        if (roles !== undefined) {
          await this.users.replaceRoles(
            tx,
            id,
            roles.map((role) => role.id),
          );
        }

        if (holdersBefore) await this.assertAdministrationRemains(tx, holdersBefore);
        const after = (await this.users.findById(id, tx))!;
        const audited = changedFields(auditView(before), auditView(after), AUDITED_FIELDS);
        if (Object.keys(audited).length > 0) {
          await this.audit.record(tx, context, {
            action: 'user.updated',
            targetType: 'user',
            targetId: id,
            changes: audited,
          });
        }
        return after;
      });
    } catch (error) {
      if (error instanceof IdentityTakenError) throw identityConflict(error.field);
      throw error;
    }
  }

  /**
   * For a change that may take an administration permission from someone (deactivation, role
   * assignments, role permissions): locks the roles (MySQL) and counts each permission's holders.
   */
  async beginAdministrationChange(tx: Tx): Promise<AdministrationHolders> {
    await this.users.lockAdministration(tx);
    const holders = new Map<Permission, number>();
    for (const permission of ADMINISTRATION)
      holders.set(permission, await this.users.countActiveHolders(tx, permission));
    return holders;
  }

  /**
   * 409 last_admin when the transaction's changes took an administration permission from its last
   * active holder (when there was one before: a database without one is the operator's to fix).
   */
  async assertAdministrationRemains(tx: Tx, holdersBefore: AdministrationHolders): Promise<void> {
    for (const [permission, before] of holdersBefore) {
      if (before > 0 && (await this.users.countActiveHolders(tx, permission)) === 0) {
        throw new ApiError('last_admin', `This change would leave no active user holding ${permission}.`);
      }
    }
  }

  /** Deactivates the user named exactly `username` and revokes every token issued so far; false if there is none. */
  async deactivate(
    username: string,
    context: AuditContext = CLI_AUDIT_CONTEXT,
    actor: Actor = OPERATOR,
  ): Promise<boolean> {
    const user = await this.users.findByUsername(username);
    if (!user) return false;
    await this.update(user.id, { isActive: false }, context, actor);
    return true;
  }

  /** Ends every token issued to this user so far (logout everywhere), recorded as `action`. */
  async revokeTokens(userId: string, context: AuditContext, action = 'auth.logout'): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.users.revokeTokens(tx, userId);
      await this.audit.record(tx, context, { action, targetType: 'user', targetId: userId });
    });
  }

  /**
   * Sets a new password (after the policy: 400 weak_password) and ends every token issued so far,
   * recorded as `action` (user.password_set by an administrator or a command, auth.password_changed
   * by the user). The actor must hold every permission the user holds (403 forbidden). Answers the
   * user's new token version, for a token that survives the change.
   */
  async setPassword(
    userId: string,
    password: string,
    context: AuditContext = CLI_AUDIT_CONTEXT,
    { action = 'user.password_set', actor = OPERATOR }: { action?: string; actor?: Actor } = {},
  ): Promise<number> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(userId);
    assertMayManage(actor, user);
    await assertPasswordPolicy(password, user);
    const passwordHash = await this.hasher.hash(password);
    return this.transactions.run(async (tx) => {
      // Roles may have changed while the password was hashed.
      const current = await this.users.findById(userId, tx);
      if (!current) throw notFound(userId);
      assertMayManage(actor, current);
      const version = await this.users.setPasswordHash(tx, userId, passwordHash);
      await this.audit.record(tx, context, { action, targetType: 'user', targetId: userId });
      return version;
    });
  }

  /** Every named and every identified role, or 400 validation_failed naming those that do not exist. */
  private async resolveRoles(names: string[], ids: string[]): Promise<Role[]> {
    const byName = await this.users.findRolesByName(names);
    const byId = await this.users.findRolesByIds(ids);
    const missing = [
      ...names.filter((name) => !byName.some((role) => role.name === name)),
      ...ids.filter((id) => !byId.some((role) => role.id === id)),
    ];
    if (missing.length) throw new ApiError('validation_failed', `Unknown role(s): ${missing.join(', ')}.`);
    const roles = new Map([...byName, ...byId].map((role) => [role.id, role]));
    return [...roles.values()];
  }
}

function notFound(id: string): ApiError {
  return new ApiError('user_not_found', `No user has the id ${id}.`);
}

function identityConflict(field: IdentityField | undefined): ApiError {
  return new ApiError('conflict', `A user with this ${field ?? 'username or email'} already exists.`);
}
