import { Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { Webhook } from './webhook.entity.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one hook (unique: never two rows for the pair), its message body as signed and
 * sent, and how its attempts went. `id` is the message id sent as webhook-id (the same on every
 * retry and replay, so receivers can deduplicate). Due while `nextAttemptAt` is set.
 */
@Entity({ name: 'webhook_deliveries' })
@Unique('UQ_webhook_deliveries_event', ['hookId', 'eventId'])
@Index('IDX_webhook_deliveries_due', ['nextAttemptAt'])
@Index('IDX_webhook_deliveries_log', ['hookId', 'createdAt', 'id'])
@Index('IDX_webhook_deliveries_finished', ['hookId', 'finishedAt'])
export class WebhookDelivery {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => Webhook, { name: 'FK_webhook_deliveries_hook', onDelete: 'CASCADE' })
  hookId: string;

  @Column({ type: 'varchar', length: 36 })
  eventId: string;

  @Column({ type: 'varchar', length: 64 })
  eventType: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  lastAttemptAt: Date | null;

  @Column({ type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ type: 'integer', nullable: true })
  durationMs: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  lastError: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  finishedAt: Date | null;
}
