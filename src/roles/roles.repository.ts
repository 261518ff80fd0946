import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type EntityManager } from 'typeorm';
import { isUniqueViolation } from '../database/sql-runner.js';
import { Role } from '../users/entities/role.entity.js';
import { UserRole } from '../users/entities/user-role.entity.js';

/** A unique index refused a role name (another writer took it after the check). */
export class RoleNameTakenError extends Error {
  override name = 'RoleNameTakenError';
}

/** Every statement about roles as administered objects (UsersRepository reads them for accounts). */
@Injectable()
export class RolesRepository {
  constructor(@InjectRepository(Role) private readonly roles: Repository<Role>) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.roles.manager.transaction(work);
  }

  findAll(): Promise<Role[]> {
    return this.roles.find({ order: { name: 'ASC' } });
  }

  /** Every role's id and name (roles are few: names are compared by identityKey in the service). */
  names(tx: EntityManager): Promise<Pick<Role, 'id' | 'name'>[]> {
    return tx.getRepository(Role).find({ select: { id: true, name: true } });
  }

  findById(id: string, tx: EntityManager = this.roles.manager): Promise<Role | null> {
    return tx.getRepository(Role).findOneBy({ id });
  }

  async save(tx: EntityManager, role: Role): Promise<void> {
    try {
      await tx.getRepository(Role).save(role);
    } catch (error) {
      if (isUniqueViolation(error)) throw new RoleNameTakenError();
      throw error;
    }
  }

  /** How many users (active or not) hold the role. */
  countHolders(tx: EntityManager, roleId: string): Promise<number> {
    return tx.getRepository(UserRole).countBy({ roleId });
  }

  async delete(tx: EntityManager, id: string): Promise<void> {
    await tx.getRepository(Role).delete({ id });
  }
}
