import { Column, Entity, PrimaryColumn } from 'typeorm';

export const NOTIFICATION_TYPES = ['email', 'sms', 'push', 'in_app'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'read'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

// Indexes are declared in the migrations (userId first, newest first, one per filter).
@Entity({ name: 'notifications' })
export class Notification {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
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
