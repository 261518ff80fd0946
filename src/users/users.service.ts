import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/error-codes.js';
import { identityKey } from '../common/text/identity-key.js';
import { User } from './entities/user.entity.js';
import { PasswordHasher } from './password-hasher.service.js';
import { IdentityTakenError, UsersRepository, type AuthContext, type IdentityField } from './users.repository.js';

export type { AuthContext } from './users.repository.js';

export interface CreateUserInput {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  roleNames: string[];
}

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  /** For login: the user named exactly `username`, with roles and the password hash. */
  findForLogin(username: string): Promise<User | null> {
    return this.users.findForLogin(username);
  }

  /** For every authenticated request: what authorization needs, in one query. */
  findAuthContext(id: string): Promise<AuthContext | null> {
    return this.users.findAuthContext(id);
  }

  /** The user named exactly `username` (for the administration commands), without roles. */
  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /**
   * Creates an active user. Roles must exist (400 validation_failed otherwise). A username or
   * e-mail address equal to an existing one after identityKey() (case and Unicode forms folded,
   * so "Émile" next to "émile" is refused on SQLite as on MySQL) is 409 conflict, naming the field;
   * the unique indexes on the keys refuse what a concurrent writer slips past this check.
   */
  async create(input: CreateUserInput): Promise<User> {
    const roles = await this.users.findRolesByName(input.roleNames);
    const missing = input.roleNames.filter((name) => !roles.some((role) => role.name === name));
    if (missing.length) throw new ApiError('validation_failed', `Unknown role(s): ${missing.join(', ')}.`);

    const usernameKey = identityKey(input.username);
    const emailKey = identityKey(input.email);
    const taken = await this.users.identityTaken(usernameKey, emailKey);
    if (taken) throw identityConflict(taken);

    const user = Object.assign(new User(), {
      id: randomUUID(),
      username: input.username,
      usernameKey,
      email: input.email,
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
      return await this.users.insert(user);
    } catch (error) {
      if (error instanceof IdentityTakenError) throw identityConflict(error.field);
      throw error;
    }
  }

  /** Deactivates the user named exactly `username` and revokes every token issued so far; false if there is none. */
  async deactivate(username: string): Promise<boolean> {
    const user = await this.users.findByUsername(username);
    if (!user) return false;
    await this.users.deactivate(user.id);
    return true;
  }

  /** Ends every token issued to this user so far (logout everywhere, password change). */
  revokeTokens(userId: string): Promise<void> {
    return this.users.revokeTokens(userId);
  }

  /** Sets a new password and ends every token issued so far. */
  async changePassword(userId: string, password: string): Promise<void> {
    await this.users.setPasswordHash(userId, await this.hasher.hash(password));
  }
}

function identityConflict(field: IdentityField | undefined): ApiError {
  return new ApiError('conflict', `A user with this ${field ?? 'username or email'} already exists.`);
}
