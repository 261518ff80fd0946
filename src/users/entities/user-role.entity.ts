import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Role } from './role.entity.js';
import { User } from './user.entity.js';

/**
 * The user_roles join table as the migrations create it. `User.roles` reads and writes it;
 * this entity only declares it, because a @JoinTable cannot name its indexes and foreign keys.
 * The primary key (userId, roleId) serves lookups by user; roleId has its own index.
 */
@Entity({ name: 'user_roles' })
@Index('IDX_user_roles_roleId', ['roleId'])
export class UserRole {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_user_roles_user', onDelete: 'CASCADE' })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Role, { name: 'FK_user_roles_role', onDelete: 'CASCADE' })
  roleId: string;
}
