import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository, type EntityManager } from 'typeorm';
import type { Permission } from '../common/authz/permission-catalogue.js';
import { EntityRows, isUniqueViolation, SqlRunner } from '../database/sql-runner.js';
import { Role } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { AUTH_CONTEXT_SQL, callerFromRows, USER_FOR_LOGIN_SQL, type AuthContext } from './users.sql.js';

export type { AuthContext } from './users.sql.js';

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

/** The fields an administrator may change on a user (keys included where they follow a field). */
export type UserChanges = Partial<Pick<User, 'email' | 'emailKey' | 'firstName' | 'lastName' | 'isActive'>>;

export interface UserListFilter {
  /** Prefix of the username's or e-mail's identity key, or of the lower-cased first or last name. */
  prefix?: { key: string; lower: string };
  isActive?: boolean;
  roleId?: string;
}

/** LIKE's wildcards taken literally ('!' is the escape character: portable, unlike a backslash). */
function likePrefix(text: string): string {
  return `${text.replace(/[!%_]/g, (char) => `!${char}`)}%`;
}

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
    return callerFromRows(await this.sql.select<Row>(AUTH_CONTEXT_SQL, [id]));
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
  async revokeTokens(id: string, tx: EntityManager = this.users.manager): Promise<void> {
    await tx.getRepository(User).update({ id }, { tokenVersion: () => 'tokenVersion + 1' });
  }

  /** Replaces the password hash and ends every token issued so far; answers the new token version. */
  async setPasswordHash(id: string, passwordHash: string, tx: EntityManager = this.users.manager): Promise<number> {
    await tx.getRepository(User).update({ id }, { passwordHash, tokenVersion: () => 'tokenVersion + 1' });
    const user = await tx.getRepository(User).findOne({ select: { id: true, tokenVersion: true }, where: { id } });
    return user?.tokenVersion ?? 0;
  }

  /** Runs `work` in one transaction: every write through `tx` commits together or not at all. */
  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.users.manager.transaction(work);
  }

  /**
   * Serialises the changes that may take users:manage away from someone (deactivation, role
   * assignments, role permissions): on MySQL by locking the roles' rows until the transaction
   * ends, so two administrators demoting each other cannot both pass the last-admin check. SQLite
   * runs one write transaction at a time already.
   */
  async lockAdministration(tx: EntityManager): Promise<void> {
    if (this.users.manager.connection.options.type === 'mysql') {
      await tx.query('SELECT id FROM roles ORDER BY id FOR UPDATE');
    }
  }

  /** How many active users hold `permission` through any of their roles. */
  async countActiveHolders(tx: EntityManager, permission: Permission): Promise<number> {
    const [resource, action] = permission.split(':');
    const roles = await tx.getRepository(Role).find();
    const granting = roles.filter((role) => role.permissions[resource]?.includes(action)).map((role) => role.id);
    if (granting.length === 0) return 0;
    return tx
      .getRepository(User)
      .createQueryBuilder('u')
      .where('u.isActive = :active', { active: true })
      .andWhere('EXISTS (SELECT 1 FROM user_roles ur WHERE ur.userId = u.id AND ur.roleId IN (:...granting))', {
        granting,
      })
      .getCount();
  }

  /** The user with roles, or null. */
  findById(id: string, tx: EntityManager = this.users.manager): Promise<User | null> {
    return tx.getRepository(User).findOne({ where: { id }, relations: { roles: true } });
  }

  findRolesByIds(ids: string[], tx: EntityManager = this.users.manager): Promise<Role[]> {
    return ids.length ? tx.getRepository(Role).findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  /** Whether another user than `exceptId` holds this e-mail identity key. */
  async emailTaken(emailKey: string, exceptId: string, tx: EntityManager = this.users.manager): Promise<boolean> {
    const holder = await tx.getRepository(User).findOne({ select: { id: true }, where: { emailKey } });
    return holder !== null && holder.id !== exceptId;
  }

  /** Inserts the user with its roles inside `tx`; a unique index refusing it is an IdentityTakenError. */
  async insertIn(tx: EntityManager, user: User): Promise<void> {
    try {
      await tx.getRepository(User).save(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new IdentityTakenError(identityFieldOf(error));
      throw error;
    }
  }

  /** Writes changed fields; deactivation also ends every token issued so far. */
  async updateFields(tx: EntityManager, id: string, changes: UserChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    const revoke = changes.isActive === false ? { tokenVersion: () => 'tokenVersion + 1' } : {};
    try {
      await tx.getRepository(User).update({ id }, { ...changes, ...revoke });
    } catch (error) {
      if (isUniqueViolation(error)) throw new IdentityTakenError(identityFieldOf(error));
      throw error;
    }
  }

  /** Replaces the user's roles with exactly these. */
  async replaceRoles(tx: EntityManager, userId: string, roleIds: string[]): Promise<void> {
    await tx.query('DELETE FROM user_roles WHERE userId = ?', [userId]);
    for (const roleId of roleIds) {
      await tx.query('INSERT INTO user_roles (userId, roleId) VALUES (?, ?)', [userId, roleId]);
    }
  }

  /** One page of users with their roles, by username key then id, and the number matching. */
  async list(filter: UserListFilter, offset: number, limit: number): Promise<{ users: User[]; total: number }> {
    const query = this.users.createQueryBuilder('u');
    if (filter.prefix) {
      const { key, lower } = filter.prefix;
      query.andWhere(
        new Brackets((any) =>
          any
            .where("u.usernameKey LIKE :key ESCAPE '!'")
            .orWhere("u.emailKey LIKE :key ESCAPE '!'")
            .orWhere("LOWER(u.firstName) LIKE :lower ESCAPE '!'")
            .orWhere("LOWER(u.lastName) LIKE :lower ESCAPE '!'"),
        ),
        { key: likePrefix(key), lower: likePrefix(lower) },
      );
    }
    if (filter.isActive !== undefined) query.andWhere('u.isActive = :isActive', { isActive: filter.isActive });
    if (filter.roleId !== undefined) {
      query.andWhere('EXISTS (SELECT 1 FROM user_roles ur WHERE ur.userId = u.id AND ur.roleId = :roleId)', {
        roleId: filter.roleId,
      });
    }
    const total = await query.getCount();
    const page = await query
      .select('u.id')
      .orderBy('u.usernameKey', 'ASC')
      .addOrderBy('u.id', 'ASC')
      .offset(offset)
      .limit(limit)
      .getMany();
    if (page.length === 0) return { users: [], total };
    const users = await this.users.find({ where: { id: In(page.map((user) => user.id)) }, relations: { roles: true } });
    const byId = new Map(users.map((user) => [user.id, user]));
    return { users: page.map((user) => byId.get(user.id)!), total };
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
