import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DomainEventType } from '../domain-event.js';

/**
 * One recorded domain event (see domain-event.ts). No foreign keys: an event outlives the
 * document or membership it names (a purge, a removal). `dispatchedAt` is set once the dispatcher
 * has made its notifications, `webhooksQueuedAt` once the webhook fan-out has made its deliveries
 * and `searchesMatchedAt` once saved searches were matched against it (each consumer its own marker); pending events are read oldest first through the indexes.
 */
@Entity({ name: 'outbox_events' })
@Index('IDX_outbox_events_pending', ['dispatchedAt', 'createdAt'])
@Index('IDX_outbox_events_webhooks_pending', ['webhooksQueuedAt', 'createdAt'])
@Index('IDX_outbox_events_searches_pending', ['searchesMatchedAt', 'createdAt'])
export class OutboxEvent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  type: DomainEventType;

  @Column({ type: 'varchar', length: 36 })
  actorId: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  projectId: string | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  documentId: string | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  subjectUserId: string | null;

  @Column({ type: 'json' })
  payload: Record<string, unknown>;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  dispatchedAt: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  webhooksQueuedAt: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  searchesMatchedAt: Date | null;
}
