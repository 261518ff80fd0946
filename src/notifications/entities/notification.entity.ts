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
// Threads: a user's in-app notifications by document, read or not, by age.
@Index('IDX_notifications_user_type_document', ['userId', 'notificationType', 'documentId', 'readAt', 'createdAt'])
// One notification per (event, recipient, channel): the dispatcher's last line of defence.
@Index('IDX_notifications_source', ['sourceEventId', 'userId', 'notificationType'], { unique: true })
// The e-mail worker's queue: due rows by next attempt time (null once sent or failed).
@Index('IDX_notifications_next_attempt', ['nextAttemptAt'])
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

  /** The event type it was made from (DomainEventType); null for notifications not made from an event. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  event: string | null;

  /** The document the event was about; no foreign key (a purged document's notifications stay). */
  @Column({ type: 'varchar', length: 36, nullable: true })
  documentId: string | null;

  /** The outbox event it was made from. */
  @Column({ type: 'varchar', length: 36, nullable: true })
  sourceEventId: string | null;

  /**
   * Where delivery stands (pending, sent, failed), whether read or not: `status` returns to it when
   * marked unread. Null when not recorded: `status` holds it while unread (kept on marking read);
   * a read row without it returns to `sent`.
   */
  @Column({ type: 'varchar', length: 16, nullable: true })
  deliveryStatus: NotificationStatus | null;

  /** Delivery attempts made (e-mail). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** E-mail timing it was made with (EmailMode other than off); null for in-app rows and older rows. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  deliveryMode: string | null;

  /** When the e-mail worker may (re)try; null when there is nothing to deliver. */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  nextAttemptAt: Date | null;
}
