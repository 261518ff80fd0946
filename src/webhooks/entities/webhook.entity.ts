import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { DomainEventType } from '../../events/domain-event.js';
import { Project } from '../../projects/entities/project.entity.js';
import { User } from '../../users/entities/user.entity.js';

/**
 * A receiver of domain events (migration 1763800000145). Global when projectId is null. `secret`
 * is the signing secret as shown once to its creator (`whsec_` + base64); it is needed in clear to sign.
 */
@Entity({ name: 'webhooks' })
@Index('IDX_webhooks_project', ['projectId'])
@Index('IDX_webhooks_owner', ['ownerId'])
export class Webhook {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_webhooks_owner', onDelete: 'RESTRICT' })
  ownerId: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  @ForeignKey(() => Project, { name: 'FK_webhooks_project', onDelete: 'CASCADE' })
  projectId: string | null;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'varchar', length: 500 })
  description: string;

  @Column({ type: 'json' })
  events: DomainEventType[];

  @Column({ type: 'varchar', length: 100 })
  secret: string;

  @Column({ type: 'boolean' })
  enabled: boolean;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  disabledAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt: Date;
}
