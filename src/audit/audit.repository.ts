import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, Repository, type QueryDeepPartialEntity } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import { AuditEvent } from './entities/audit-event.entity.js';

/** A position in the newest-first order: the (at, id) of the last event a client has seen. */
export interface AuditCursor {
  at: Date;
  id: string;
}

export interface AuditFilter {
  actorId?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
}

/** Every statement of the audit trail: the insert (in the change's transaction) and the filtered list. */
@Injectable()
export class AuditRepository {
  constructor(@InjectRepository(AuditEvent) private readonly events: Repository<AuditEvent>) {}

  async insert(tx: Tx, event: AuditEvent): Promise<void> {
    await tx.getRepository(AuditEvent).insert(insertable(event));
  }

  /** One page, newest first (at, then id, descending), and the number of matching events. */
  async list(
    filter: AuditFilter,
    page: { offset: number; limit: number; after?: AuditCursor },
  ): Promise<{ events: AuditEvent[]; total: number }> {
    const query = this.events.createQueryBuilder('e');
    if (filter.actorId !== undefined) query.andWhere('e.actorId = :actorId', { actorId: filter.actorId });
    if (filter.action !== undefined) query.andWhere('e.action = :action', { action: filter.action });
    if (filter.targetType !== undefined)
      query.andWhere('e.targetType = :targetType', { targetType: filter.targetType });
    if (filter.targetId !== undefined) query.andWhere('e.targetId = :targetId', { targetId: filter.targetId });
    if (filter.from !== undefined) query.andWhere('e.at >= :from', { from: this.storedAt(filter.from) });
    if (filter.to !== undefined) query.andWhere('e.at < :to', { to: this.storedAt(filter.to) });
    const total = await query.getCount();
    if (page.after) {
      const at = this.storedAt(page.after.at);
      query.andWhere(
        new Brackets((seek) =>
          seek.where('e.at < :afterAt', { afterAt: at }).orWhere('e.at = :afterAt AND e.id < :afterId', {
            afterId: page.after!.id,
          }),
        ),
      );
    }
    const events = await query
      .orderBy('e.at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .offset(page.offset)
      .limit(page.limit)
      .getMany();
    return { events, total };
  }

  /** A time as the `at` column stores it, for comparisons in a WHERE clause. */
  private storedAt(at: Date): unknown {
    const column = this.events.metadata.findColumnWithPropertyName('at')!;
    return this.events.manager.connection.driver.preparePersistentValue(at, column);
  }
}

/** The event as an insert's values: `changes` is a simple-json object, which TypeORM's partial type does not model. */
function insertable(event: AuditEvent): QueryDeepPartialEntity<AuditEvent> {
  return event as QueryDeepPartialEntity<AuditEvent>;
}
