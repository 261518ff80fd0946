import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, Repository } from 'typeorm';
import type { Permission } from '../common/authz/permission-catalogue.js';
import { isUniqueViolation } from '../database/database-errors.js';
import type { Tx } from '../database/transactions.js';
import { Role, type RolePermissions } from './entities/role.entity.js';
import { UserRole } from './entities/user-role.entity.js';
import { User } from './entities/user.entity.js';

/** What authorizing a request needs about its user. */
export interface AuthContext {
  id: string;
  username: string;
  isActive: boolean;
  tokenVersion: number;
  roles: { name: string; permissions: RolePermissions }[];
  /** Asked for with `memberships`: the ids of the user's projects (undefined when not asked or not read whole). */
  projectIds?: string[];
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

/** The fields an administrator may change on a user (keys included where they follow a field). */
export type UserChanges = Partial<Pick<User, 'email' | 'emailKey' | 'firstName' | 'lastName' | 'isActive'>>;
export type UserSettingsChanges = Partial<
  Pick<User, 'timezone' | 'quietHoursStart' | 'quietHoursEnd' | 'urgentBypass' | 'snoozedUntil'>
>;

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

/** The guard's read on every request: a fixed text (building it with a QueryBuilder cost more than running it). */
const AUTH_CONTEXT_SQL =
  'SELECT u.id AS id, u.username AS username, u.isActive AS isActive, u.tokenVersion AS tokenVersion, ' +
  'r.name AS roleName, r.permissions AS permissions FROM users u ' +
  'LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId WHERE u.id = ?';
// The count tells a whole list from one cut by MySQL's group_concat_max_len.
const AUTH_CONTEXT_WITH_MEMBERSHIPS_SQL = AUTH_CONTEXT_SQL.replace(
  ' FROM users u ',
  ', (SELECT GROUP_CONCAT(pm.projectId) FROM project_members pm WHERE pm.userId = u.id) AS projectIds, ' +
    '(SELECT COUNT(*) FROM project_members pm WHERE pm.userId = u.id) AS projectCount FROM users u ',
);

/**
 * Every statement of users and their roles, through TypeORM. Reads outside a change use the
 * default manager; writes take the Tx of Transactions.run. Usernames match exactly: the indexed
 * column's collation may ignore trailing spaces, so lookups keep only the exact username.
 */
@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Role) private readonly roles: Repository<Role>,
  ) {}

  /** The user with roles and the password hash (which is otherwise never selected), in one statement. */
  async findForLogin(username: string): Promise<User | null> {
    const found = await this.users
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .leftJoinAndSelect('u.roles', 'r')
      .where('u.username = :username', { username })
      .getMany();
    return found.find((user) => user.username === username) ?? null;
  }

  /**
   * The user by primary key with their roles (and with `memberships` their project ids), in one
   * statement: what the guard authorizes with on every request. Read as raw rows (one per role):
   * hydrating a joined relation costs more than the read.
   */
  async findAuthContext(id: string, options: { memberships?: boolean } = {}): Promise<AuthContext | null> {
    const rows = await this.users.query<
      {
        id: string;
        username: string;
        isActive: number | boolean;
        tokenVersion: number;
        roleName: string | null;
        permissions: string | null;
        projectIds?: string | null;
        projectCount?: number | string;
      }[]
    >(options.memberships ? AUTH_CONTEXT_WITH_MEMBERSHIPS_SQL : AUTH_CONTEXT_SQL, [id]);
    if (rows.length === 0) return null;
    const [{ username, isActive, tokenVersion, projectIds, projectCount }] = rows;
    const context: AuthContext = {
      id: rows[0].id,
      username,
      isActive: Boolean(isActive),
      tokenVersion,
      roles: rows
        .filter((row) => row.roleName !== null)
        .map((row) => ({ name: row.roleName!, permissions: JSON.parse(row.permissions!) as RolePermissions })),
    };
    if (options.memberships) {
      const listed = projectIds ? projectIds.split(',') : [];
      if (listed.length === Number(projectCount)) context.projectIds = listed;
    }
    return context;
  }

  /** The user named exactly `username`, without roles. */
  async findByUsername(username: string): Promise<User | null> {
    const found = await this.users.findBy({ username });
    return found.find((user) => user.username === username) ?? null;
  }

  findRolesByName(names: string[]): Promise<Role[]> {
    return names.length ? this.roles.findBy({ name: In(names) }) : Promise.resolve([]);
  }

  findRolesByIds(ids: string[]): Promise<Role[]> {
    return ids.length ? this.roles.findBy({ id: In(ids) }) : Promise.resolve([]);
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

  /** The user with roles, or null. */
  findById(id: string, tx: Tx = this.users.manager): Promise<User | null> {
    return tx.getRepository(User).findOne({ where: { id }, relations: { roles: true } });
  }

  /** Inserts the user with its roles; a unique index refusing it is an IdentityTakenError. */
  async insert(tx: Tx, user: User): Promise<void> {
    try {
      await tx.getRepository(User).save(user, { reload: false });
    } catch (error) {
      throw identityError(error);
    }
  }

  /** Ends every token issued to the user so far. */
  async revokeTokens(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(User).update({ id }, { tokenVersion: () => 'tokenVersion + 1' });
  }

  /** Replaces the password hash and ends every token issued so far; answers the new token version. */
  async setPasswordHash(tx: Tx, id: string, passwordHash: string): Promise<number> {
    await tx.getRepository(User).update({ id }, { passwordHash, tokenVersion: () => 'tokenVersion + 1' });
    const user = await tx.getRepository(User).findOne({ select: { id: true, tokenVersion: true }, where: { id } });
    return user?.tokenVersion ?? 0;
  }

  /**
   * On MySQL, locks the roles' rows until the transaction ends, so two changes that may each take
   * an administration permission from its last holder run one after the other (SQLite has one writer).
   */
  async lockAdministration(tx: Tx): Promise<void> {
    if (tx.connection.options.type !== 'mysql') return;
    await tx
      .getRepository(Role)
      .createQueryBuilder('r')
      .select('r.id')
      .orderBy('r.id')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** How many active users hold `permission` through any of their roles. */
  async countActiveHolders(tx: Tx, permission: Permission): Promise<number> {
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

  /** Whether another user than `exceptId` holds this e-mail identity key. */
  async emailTaken(tx: Tx, emailKey: string, exceptId: string): Promise<boolean> {
    const holder = await tx.getRepository(User).findOne({ select: { id: true }, where: { emailKey } });
    return holder !== null && holder.id !== exceptId;
  }

  /** Writes changed fields; deactivation also ends every token issued so far. */
  async updateFields(tx: Tx, id: string, changes: UserChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    const revoke = changes.isActive === false ? { tokenVersion: () => 'tokenVersion + 1' } : {};
    try {
      await tx.getRepository(User).update({ id }, { ...changes, ...revoke });
    } catch (error) {
      throw identityError(error);
    }
  }

  /** Writes the user's own attention settings (time zone, quiet hours, urgent bypass, snooze). */
  async updateSettings(tx: Tx, id: string, changes: UserSettingsChanges): Promise<void> {
    if (Object.keys(changes).length > 0) await tx.getRepository(User).update({ id }, changes);
  }

  /** Replaces the user's roles with exactly these. */
  async replaceRoles(tx: Tx, userId: string, roleIds: string[]): Promise<void> {
    const links = tx.getRepository(UserRole);
    await links.delete({ userId });
    if (roleIds.length) await links.insert(roleIds.map((roleId) => ({ userId, roleId })));
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

/** A unique index's refusal as an IdentityTakenError naming the field; any other error unchanged. */
function identityError(error: unknown): unknown {
  return isUniqueViolation(error) ? new IdentityTakenError(identityFieldOf(error)) : error;
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
