import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, Repository, type EntityManager } from 'typeorm';
import { EntityRows, type SqlTransaction } from '../database/sql-runner.js';
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

const COLUMNS = ['id', 'at', 'actorId', 'action', 'targetType', 'targetId', 'ip', 'requestId', 'changes'] as const;
const INSERT_SQL = `INSERT INTO audit_events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;

/** Every statement of the audit trail: one portable INSERT (on any transaction) and the filtered list. */
@Injectable()
export class AuditRepository {
  private readonly rows: EntityRows<AuditEvent>;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(AuditEvent) private readonly events: Repository<AuditEvent>,
  ) {
    this.rows = new EntityRows(dataSource, AuditEvent);
  }

  /** Writes outside any transaction (each statement commits on its own). */
  get outsideTransaction(): EntityManager {
    return this.dataSource.manager;
  }

  async insert(tx: EntityManager | SqlTransaction, event: AuditEvent): Promise<void> {
    const values = COLUMNS.map((column) => this.rows.toColumn(column, event[column]));
    if ('execute' in tx) await tx.execute(INSERT_SQL, values);
    else await tx.query(INSERT_SQL, values);
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
    if (filter.from !== undefined) query.andWhere('e.at >= :from', { from: this.rows.toColumn('at', filter.from) });
    if (filter.to !== undefined) query.andWhere('e.at < :to', { to: this.rows.toColumn('at', filter.to) });
    const total = await query.getCount();
    if (page.after) {
      const at = this.rows.toColumn('at', page.after.at);
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
}
