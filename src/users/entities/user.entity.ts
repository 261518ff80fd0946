import { Column, Entity, Index, JoinTable, ManyToMany, PrimaryColumn } from 'typeorm';
import { Role } from './role.entity.js';

/**
 * Declares exactly what the migrations create (test/e2e/schema.e2e-spec.ts holds the two together).
 * `utf8mb4_bin` is MySQL's byte comparison, which is what SQLite does by default; TypeORM reads no
 * collation back on either database, so only MySQL DDL ever uses it (SQLite has no such collation).
 */
@Entity({ name: 'users' })
@Index('UQ_users_username', ['username'], { unique: true })
@Index('UQ_users_email', ['email'], { unique: true })
@Index('UQ_users_username_key', ['usernameKey'], { unique: true })
@Index('UQ_users_email_key', ['emailKey'], { unique: true })
export class User {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  /** As typed; unique byte for byte. */
  @Column({ type: 'varchar', length: 255, collation: 'utf8mb4_bin' })
  username: string;

  @Column({ type: 'varchar', length: 320 })
  email: string;

  /** identityKey(username): unique, so look-alike usernames ("Alice", "ALICE") cannot coexist. */
  @Column({ type: 'varchar', length: 255, collation: 'utf8mb4_bin' })
  usernameKey: string;

  /** identityKey(email): unique, so one mailbox cannot hold two accounts by changing case. */
  @Column({ type: 'varchar', length: 320, collation: 'utf8mb4_bin' })
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

  /** IANA time zone of the user's quiet hours and digests. */
  @Column({ type: 'varchar', length: 64, default: 'UTC' })
  timezone: string;

  /** Quiet hours ("HH:MM" in `timezone`); both null: none. */
  @Column({ type: 'varchar', length: 5, nullable: true })
  quietHoursStart: string | null;

  @Column({ type: 'varchar', length: 5, nullable: true })
  quietHoursEnd: string | null;

  /** Urgent events (notifications/delivery/delivery-timing.ts) pass through quiet hours and snooze. */
  @Column({ type: 'boolean', default: true })
  urgentBypass: boolean;

  /** E-mails wait until then (POST /api/notifications/snooze). */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  snoozedUntil: Date | null;

  // The table itself (keys, index, foreign keys) is declared by UserRole; this is only the relation.
  @ManyToMany(() => Role, { eager: false })
  @JoinTable({
    name: 'user_roles',
    joinColumn: { name: 'userId', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'roleId', referencedColumnName: 'id' },
    synchronize: false,
  })
  roles: Role[];
}
