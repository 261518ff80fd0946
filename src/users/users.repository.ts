import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { EntityRows, isUniqueViolation, SqlRunner } from '../database/sql-runner.js';
import { Role, type RolePermissions } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { AUTH_CONTEXT_SQL, USER_FOR_LOGIN_SQL } from './users.sql.js';

/** What authorizing a request needs about its user. */
export interface AuthContext {
  id: string;
  username: string;
  isActive: boolean;
  tokenVersion: number;
  roles: { name: string; permissions: RolePermissions }[];
}

/** The account identifier a new user collides with. */
export type IdentityField = 'username' | 'email';

/** A unique index refused a new user (another writer took the identifier after the check). */
export class IdentityTakenError extends Error {
  override name = 'IdentityTakenError';
  constructor(readonly field: IdentityField | undefined) {
    super(`A user with this ${field ?? 'username or email'} already exists.`);
  }
}

type Row = Record<string, unknown>;

/**
 * Every statement and row mapping of users and roles. Login and the per-request token check are
 * hand-written SQL (users.sql.ts) on the shared runner: they run on every request, and TypeORM's
 * QueryRunner and hydration cost more CPU there than the query. Everything else uses TypeORM's
 * repositories.
 *
 * Usernames match exactly: a lookup by the indexed column (whose collation may ignore trailing
 * spaces) keeps only the rows whose username is the given one, character for character.
 */
@Injectable()
export class UsersRepository {
  private readonly userRows: EntityRows<User>;
  private readonly roleRows: EntityRows<Role>;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Role) private readonly roles: Repository<Role>,
  ) {
    this.userRows = new EntityRows(dataSource, User);
    this.roleRows = new EntityRows(dataSource, Role);
  }

  /** The user with roles and the password hash (which is otherwise never selected), in one statement. */
  async findForLogin(username: string): Promise<User | null> {
    const rows = (await this.sql.select<Row>(USER_FOR_LOGIN_SQL, [username])).filter(
      (row) => row.username === username,
    );
    if (rows.length === 0) return null;
    const user = this.userRows.fromRow(rows[0]);
    user.roles = rows
      .filter((row) => row.roleId !== null)
      .map((row) => this.roleRows.fromRow({ id: row.roleId, name: row.roleName, permissions: row.rolePermissions }));
    return user;
  }

  async findAuthContext(id: string): Promise<AuthContext | null> {
    const rows = await this.sql.select<Row>(AUTH_CONTEXT_SQL, [id]);
    const [first] = rows;
    if (!first) return null;
    return {
      id: this.userRows.fromColumn('id', first.id),
      username: this.userRows.fromColumn('username', first.username),
      isActive: this.userRows.fromColumn('isActive', first.isActive),
      tokenVersion: this.userRows.fromColumn('tokenVersion', first.tokenVersion),
      roles: rows
        .filter((row) => row.roleId !== null)
        .map((row) => ({
          name: this.roleRows.fromColumn('name', row.roleName),
          permissions: this.roleRows.fromColumn('permissions', row.rolePermissions),
        })),
    };
  }

  /** The user named exactly `username`, without roles. */
  async findByUsername(username: string): Promise<User | null> {
    const user = await this.users.findOneBy({ username });
    return user?.username === username ? user : null;
  }

  findRolesByName(names: string[]): Promise<Role[]> {
    return names.length ? this.roles.findBy({ name: In(names) }) : Promise.resolve([]);
  }

  /** Which identifier, if any, an existing user already holds under these identity keys. */
  async identityTaken(usernameKey: string, emailKey: string): Promise<IdentityField | undefined> {
    const holder = await this.users.findOne({
      select: { id: true, usernameKey: true, emailKey: true },
      where: [{ usernameKey }, { emailKey }],
    });
    if (!holder) return undefined;
    return holder.usernameKey === usernameKey ? 'username' : 'email';
  }

  /** Inserts the user with its roles; a unique index refusing it is an IdentityTakenError. */
  async insert(user: User): Promise<User> {
    try {
      return await this.users.save(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new IdentityTakenError(identityFieldOf(error));
      throw error;
    }
  }

  /** Marks the user inactive and ends every token issued so far. */
  async deactivate(id: string): Promise<void> {
    await this.users.update({ id }, { isActive: false, tokenVersion: () => 'tokenVersion + 1' });
  }

  /** Ends every token issued to the user so far. */
  async revokeTokens(id: string): Promise<void> {
    await this.users.update({ id }, { tokenVersion: () => 'tokenVersion + 1' });
  }

  /** Replaces the password hash and ends every token issued so far. */
  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.users.update({ id }, { passwordHash, tokenVersion: () => 'tokenVersion + 1' });
  }
}

/** The identifier whose unique index refused a row, from the driver's message (index or column name). */
function identityFieldOf(error: unknown): IdentityField | undefined {
  const message = error instanceof Error ? error.message : '';
  // MySQL/MariaDB: "... for key 'UQ_users_email_key'"; SQLite: "UNIQUE constraint failed: users.emailKey".
  const name = /for key '([^']+)'|constraint failed: ([\w.]+)/.exec(message);
  const index = (name?.[1] ?? name?.[2] ?? '').toLowerCase();
  if (index.includes('email')) return 'email';
  if (index.includes('username')) return 'username';
  return undefined;
}
