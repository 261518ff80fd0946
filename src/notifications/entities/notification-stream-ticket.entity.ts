import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';

/**
 * A single-use ticket for GET /api/notifications/stream?ticket= (EventSource cannot send headers).
 * Stored in the database so that any instance accepts it, and deleted when used.
 */
@Entity({ name: 'notification_stream_tickets' })
export class NotificationStreamTicket {
  /** SHA-256 (hex) of the ticket. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_notification_stream_tickets_user', onDelete: 'CASCADE' })
  userId: string;

  /** The token version and expiry of the token that asked for it: the stream ends with that token. */
  @Column({ type: 'integer' })
  tokenVersion: number;

  @Column({ type: 'datetime', precision: 3 })
  tokenExpiresAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  expiresAt: Date;
}
