import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, MoreThan, Repository } from 'typeorm';
import { insertStatement } from '../database/raw-rows.js';
import type { Tx } from '../database/transactions.js';
import { AuditChainHead } from './entities/audit-chain-head.entity.js';
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

/** The one row of audit_chain_head. */
const HEAD_ID = 1;

/**
 * Every statement of the audit trail: the chain head and insert (in the change's transaction),
 * the filtered list, and the walk along the chain (export, verification).
 */
@Injectable()
export class AuditRepository {
  constructor(
    @InjectRepository(AuditEvent) private readonly events: Repository<AuditEvent>,
    @InjectRepository(AuditChainHead) private readonly heads: Repository<AuditChainHead>,
  ) {}

  /**
   * The chain's end, locked until the transaction ends (FOR UPDATE on MySQL; SQLite's single
   * writer already serialises it, and a Galera certification conflict on the head retries).
   */
  async lockHead(tx: Tx): Promise<AuditChainHead> {
    const query = tx.getRepository(AuditChainHead).createQueryBuilder('h').where('h.id = :id', { id: HEAD_ID });
    if (tx.connection.options.type !== 'better-sqlite3') query.setLock('pessimistic_write');
    const head = await query.getOne();
    if (!head) throw new Error('audit_chain_head has no row: run the migrations');
    return head;
  }

  /**
   * One INSERT for the linked events, as text (every audited write and each batch of share
   * downloads appends here); the chain head follows them by trigger (migration 1763800000160).
   */
  async append(tx: Tx, events: AuditEvent[]): Promise<void> {
    await tx.query(...insertStatement(tx, AuditEvent, events));
  }

  head(): Promise<AuditChainHead | null> {
    return this.heads.findOneBy({ id: HEAD_ID });
  }

  /** Chained events after `afterSequence`, in chain order, optionally within [from, to). */
  chainPage(afterSequence: number, limit: number, range: { from?: Date; to?: Date } = {}): Promise<AuditEvent[]> {
    const query = this.events
      .createQueryBuilder('e')
      .where('e.sequence > :afterSequence', { afterSequence })
      .orderBy('e.sequence', 'ASC')
      .limit(limit);
    if (range.from !== undefined) query.andWhere('e.at >= :from', { from: this.storedAt(range.from) });
    if (range.to !== undefined) query.andWhere('e.at < :to', { to: this.storedAt(range.to) });
    return query.getMany();
  }

  /** The number of chained events after a sequence (the verifier's progress total). */
  countChained(afterSequence = 0): Promise<number> {
    return this.events.countBy({ sequence: MoreThan(afterSequence) });
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
