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

  @Column({ type: 'boolean' })
  email: boolean;
}
