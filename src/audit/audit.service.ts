import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/error-codes.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';
import { AuditRepository } from './audit.repository.js';
import type { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto.js';
import type { AuditEvent } from './entities/audit-event.entity.js';

/** Reading the trail (recording is AuditTrail's job). */
@Injectable()
export class AuditService {
  constructor(private readonly events: AuditRepository) {}

  async list(
    query: ListAuditEventsQueryDto,
  ): Promise<{ events: AuditEvent[]; total: number; page: number | null; nextCursor: string | null }> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Give either page or cursor, not both.');
    }
    const from = query.from === undefined ? undefined : new Date(query.from);
    const to = query.to === undefined ? undefined : new Date(query.to);
    if (from && to && from > to) throw new ApiError('validation_failed', 'from must not be after to');
    const after = query.cursor === undefined ? undefined : decodeKeysetCursor(query.cursor);
    const page = query.cursor === undefined ? (query.page ?? 1) : null;
    const { events, total } = await this.events.list(
      {
        actorId: query.actorId,
        action: query.action,
        targetType: query.targetType,
        targetId: query.targetId,
        from,
        to,
      },
      // One more than a page: whether it comes back tells if there is a next page.
      { offset: page === null ? 0 : (page - 1) * query.limit, limit: query.limit + 1, after },
    );
    const pageEvents = events.slice(0, query.limit);
    const last = pageEvents.at(-1);
    const nextCursor = events.length > query.limit && last ? encodeKeysetCursor({ at: last.at, id: last.id }) : null;
    return { events: pageEvents, total, page, nextCursor };
  }
}
