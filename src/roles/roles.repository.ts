import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUniqueViolation } from '../database/database-errors.js';
import type { Tx } from '../database/transactions.js';
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

  findAll(): Promise<Role[]> {
    return this.roles.find({ order: { name: 'ASC' } });
  }

  /** Every role's id and name (roles are few: names are compared by identityKey in the service). */
  names(tx: Tx): Promise<Pick<Role, 'id' | 'name'>[]> {
    return tx.getRepository(Role).find({ select: { id: true, name: true } });
  }

  findById(id: string, tx: Tx = this.roles.manager): Promise<Role | null> {
    return tx.getRepository(Role).findOneBy({ id });
  }

  async save(tx: Tx, role: Role): Promise<void> {
    try {
      await tx.getRepository(Role).save(role);
    } catch (error) {
      if (isUniqueViolation(error)) throw new RoleNameTakenError();
      throw error;
    }
  }

  /** How many users (active or not) hold the role. */
  countHolders(tx: Tx, roleId: string): Promise<number> {
    return tx.getRepository(UserRole).countBy({ roleId });
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(Role).delete({ id });
  }
}
