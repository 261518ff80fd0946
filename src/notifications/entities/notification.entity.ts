import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';

export const NOTIFICATION_TYPES = ['email', 'sms', 'push', 'in_app'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'read'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

// The list is always "one user's notifications, newest first": every index leads with userId and
// ends with (createdAt, id), so each filter is an index range read in order.
@Entity({ name: 'notifications' })
@Index('IDX_notifications_user_created', ['userId', 'createdAt', 'id'])
@Index('IDX_notifications_user_status_created', ['userId', 'status', 'createdAt', 'id'])
@Index('IDX_notifications_user_type_created', ['userId', 'notificationType', 'createdAt', 'id'])
@Index('IDX_notifications_user_read_created', ['userId', 'readAt', 'createdAt', 'id'])
export class Notification {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_notifications_user', onDelete: 'CASCADE' })
  userId: string;

  @Column({ type: 'varchar', length: 255 })
  subject: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'varchar', length: 16 })
  notificationType: NotificationType;

  @Column({ type: 'varchar', length: 16 })
  status: NotificationStatus;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  readAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
