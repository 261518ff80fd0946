import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { identityKey } from '../common/text/identity-key.js';
import { entityFromRow, HotPathSql } from '../database/hot-path-sql.js';
import { Role, type RolePermissions } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { PasswordHasher } from './password-hasher.service.js';

export interface AuthContext {
  id: string;
  username: string;
  isActive: boolean;
  tokenVersion: number;
  roles: { name: string; permissions: RolePermissions }[];
}

interface AuthContextRow {
  id: string;
  username: string;
  isActive: number | string | boolean;
  tokenVersion: number | string;
  roleName: string | null;
  rolePermissions: string | null;
}

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
  /** Every users column (the password hash included) plus the roles, by username. */
  private readonly loginSelect: string;

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Role) private readonly roles: Repository<Role>,
    private readonly hasher: PasswordHasher,
    private readonly dataSource: DataSource,
    private readonly sql: HotPathSql,
  ) {
    const userColumns = users.metadata.columns.map((column) => `u.${column.databaseName}`).join(', ');
    this.loginSelect =
      `SELECT ${userColumns}, r.id AS roleId, r.name AS roleName, r.permissions AS rolePermissions ` +
      `FROM users u LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId ` +
      `WHERE u.username = ?`;
  }

  /**
   * For login: the user with roles and the password hash (which is otherwise never selected), in
   * one statement. Hand-written SQL like the other hot paths; values go through the driver's own
   * conversions (entityFromRow), so the result is what TypeORM would have hydrated.
   */
  async findForLogin(username: string): Promise<User | null> {
    const rows = await this.sql.select<Record<string, unknown>>(this.loginSelect, [username]);
    if (rows.length === 0) return null;
    const driver = this.dataSource.driver;
    const user = entityFromRow(this.users.metadata, driver, rows[0]) as User;
    user.roles = rows
      .filter((row) => row.roleId !== null)
      .map(
        (row) =>
          entityFromRow(this.roles.metadata, driver, {
            id: row.roleId,
            name: row.roleName,
            permissions: row.rolePermissions,
          }) as Role,
      );
    return user;
  }

  /**
   * For every authenticated request: one query for what authorization needs (active flag,
   * token version, role permissions). Hand-written SQL because it runs on every request.
   */
  async findAuthContext(id: string): Promise<AuthContext | null> {
    const rows = await this.sql.select<AuthContextRow>(
      `SELECT u.id, u.username, u.isActive, u.tokenVersion, r.name AS roleName, r.permissions AS rolePermissions
       FROM users u
       LEFT JOIN user_roles ur ON ur.userId = u.id
       LEFT JOIN roles r ON r.id = ur.roleId
       WHERE u.id = ?`,
      [id],
    );
    if (rows.length === 0) return null;
    const [first] = rows;
    return {
      id: first.id,
      username: first.username,
      isActive: Boolean(Number(first.isActive)),
      tokenVersion: Number(first.tokenVersion),
      roles: rows
        .filter((row) => row.roleName !== null)
        .map((row) => ({ name: row.roleName!, permissions: JSON.parse(row.rolePermissions!) as RolePermissions })),
    };
  }

  async create(input: CreateUserInput): Promise<User> {
    const roles = input.roleNames.length ? await this.roles.findBy({ name: In(input.roleNames) }) : [];
    const missing = input.roleNames.filter((name) => !roles.some((role) => role.name === name));
    if (missing.length) throw new Error(`Unknown role(s): ${missing.join(', ')}`);
    const passwordHash = await this.hasher.hash(input.password);
    const user = this.users.create({
      id: randomUUID(),
      username: input.username,
      email: input.email,
      usernameKey: identityKey(input.username),
      emailKey: identityKey(input.email),
      firstName: input.firstName,
      lastName: input.lastName,
      passwordHash,
      isActive: true,
      tokenVersion: 0,
      createdAt: new Date(),
      roles,
    });
    return this.users.save(user);
  }

  /** Deactivates and revokes every token issued so far. Returns false for an unknown username. */
  async deactivate(username: string): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(User)
      .set({ isActive: false, tokenVersion: () => 'tokenVersion + 1' })
      .where('username = :username', { username })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Ends every token issued to this user so far (logout everywhere, password change). */
  async revokeTokens(userId: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(User)
      .set({ tokenVersion: () => 'tokenVersion + 1' })
      .where('id = :id', { id: userId })
      .execute();
  }

  async changePassword(userId: string, password: string): Promise<void> {
    const passwordHash = await this.hasher.hash(password);
    await this.dataSource
      .createQueryBuilder()
      .update(User)
      .set({ passwordHash, tokenVersion: () => 'tokenVersion + 1' })
      .where('id = :id', { id: userId })
      .execute();
  }
}
