import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { Role } from './entities/role.entity.js';
import { User } from './entities/user.entity.js';
import { PasswordHasher } from './password-hasher.service.js';

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
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Role) private readonly roles: Repository<Role>,
    private readonly hasher: PasswordHasher,
    private readonly dataSource: DataSource,
  ) {}

  /** For login: the user with roles and the password hash (which is otherwise never selected). */
  findForLogin(username: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .addSelect('user.passwordHash')
      .leftJoinAndSelect('user.roles', 'role')
      .where('user.username = :username', { username })
      .getOne();
  }

  /** For every authenticated request: one query, user plus roles. */
  findWithRoles(id: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .leftJoinAndSelect('user.roles', 'role')
      .where('user.id = :id', { id })
      .getOne();
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
