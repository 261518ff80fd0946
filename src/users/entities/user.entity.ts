import { Column, Entity, JoinTable, ManyToMany, PrimaryColumn } from 'typeorm';
import { Role } from './role.entity.js';

@Entity({ name: 'users' })
export class User {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 255, unique: true })
  username: string;

  @Column({ type: 'varchar', length: 320, unique: true })
  email: string;

  /** identityKey(username): unique, so look-alike names (case, Unicode forms) cannot coexist. */
  @Column({ type: 'varchar', length: 255 })
  usernameKey: string;

  /** identityKey(email), unique like usernameKey. */
  @Column({ type: 'varchar', length: 320 })
  emailKey: string;

  @Column({ type: 'varchar', length: 100 })
  firstName: string;

  @Column({ type: 'varchar', length: 100 })
  lastName: string;

  /** argon2id PHC string; never serialized (see UserResponseDto). */
  @Column({ type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ type: 'boolean', default: true })
  isActive: boolean;

  /** Bumped on logout, password change and deactivation; tokens carry it and older ones stop working. */
  @Column({ type: 'integer', default: 0 })
  tokenVersion: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @ManyToMany(() => Role, { eager: false })
  @JoinTable({
    name: 'user_roles',
    joinColumn: { name: 'userId', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'roleId', referencedColumnName: 'id' },
  })
  roles: Role[];
}
