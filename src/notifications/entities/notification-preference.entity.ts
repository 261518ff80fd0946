import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';

/** A user's choice for one event type; events without a row use the defaults (notification-preferences.ts). */
@Entity({ name: 'notification_preferences' })
export class NotificationPreference {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_notification_preferences_user', onDelete: 'CASCADE' })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  event: string;

  @Column({ type: 'boolean' })
  inApp: boolean;

  /** False when the e-mail mode is `off` (kept for rows and readers of before e-mail modes). */
  @Column({ type: 'boolean' })
  email: boolean;

  /** immediate, if_unread, hourly, daily or off; null: immediate when `email`, else off. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  emailMode: string | null;

  /** if_unread's delay; null: the default. */
  @Column({ type: 'integer', nullable: true })
  emailDelayMinutes: number | null;
}
