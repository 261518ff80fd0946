import { Readable } from 'node:stream';
import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequirePermission } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { ApiError } from '../common/errors/error-codes.js';
import { AuditChainService } from './audit-chain.service.js';
import { AuditService } from './audit.service.js';
import { AuditChainHeadDto, ExportAuditEventsQueryDto } from './dto/audit-chain.dto.js';
import { AuditEventDto, AuditEventListResponseDto } from './dto/audit-event-response.dto.js';
import { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto.js';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/audit-events')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly chain: AuditChainService,
  ) {}

  @RequirePermission('audit:read')
  @Get()
  @ApiOperation({
    summary: 'List audit events',
    description:
      'Every change made through the administration endpoints, every password change, login success and ' +
      'failure, and logout; newest first (at, then id, descending). Filters combine with AND; `from` is ' +
      'inclusive, `to` exclusive. Page with page/limit, or follow pagination.nextCursor (keyset). The trail ' +
      'is append-only: no endpoint changes or deletes an event.',
  })
  @ApiOkResponse({ type: AuditEventListResponseDto })
  @ApiErrors('unauthorized', 'forbidden')
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    const { events, total, page, nextCursor } = await this.audit.list(query);
    return {
      events: events.map((event) => AuditEventDto.from(event)),
      pagination: PaginationDto.of(page, query.limit, total, nextCursor),
    };
  }

  @RequirePermission('audit:read')
  @Get('head')
  @ApiOperation({
    summary: 'The end of the audit hash chain',
    description:
      'The hash of the last chained event and how many events the chain holds. An operator records it ' +
      'elsewhere (a ticket, a notary, another system): any later change to an event up to it shows as a ' +
      'broken link when the chain is verified (npm run audit:verify, or an export checked independently).',
  })
  @ApiOkResponse({ type: AuditChainHeadDto })
  @ApiErrors('unauthorized', 'forbidden')
  head(): Promise<AuditChainHeadDto> {
    return this.chain.head();
  }

  @RequirePermission('audit:read')
  @Get('export')
  @ApiOperation({
    summary: 'Export the audit hash chain as NDJSON',
    description:
      'One chained event per line, in chain order (sequence ascending), with at in [from, to): sequence, id, ' +
      'at, actorId, action, targetType, targetId, ip, requestId, changes, previousHash and hash (hex). ' +
      'A line verifies when hash = hex(SHA-256(previousHash ‖ canonical JSON of the line without ' +
      'previousHash and hash)), the canonical JSON being RFC 8785 (keys sorted, no whitespace); each ' +
      "line's previousHash is the hash of the line before. The first event's previousHash is 64 zeros. " +
      'See README "Governance".',
  })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({
    description: 'NDJSON, streamed',
    content: {
      'application/x-ndjson': {
        schema: { type: 'string', format: 'binary' },
        example:
          '{"action":"role.created","actorId":"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed","at":"2026-03-02T09:15:27.412Z",' +
          '"changes":{"name":{"from":null,"to":"auditor"}},"id":"0d6f5a8e-4b1c-4f7e-9a2b-3c4d5e6f7a8b",' +
          '"ip":"203.0.113.7","requestId":"c0a80101-3f2a-4b7e-8c1d-9e0f1a2b3c4d","sequence":1,' +
          '"targetId":"3f2c1b0a-9e8d-4c7b-a6f5-e4d3c2b1a098","targetType":"role",' +
          '"previousHash":"0000000000000000000000000000000000000000000000000000000000000000",' +
          '"hash":"5d41402abc4b2a76b9719d911017c592aa0f6c9e2b9e0e7c58e1f3a4b5c6d7e8"}\n',
      },
    },
  })
  @ApiErrors('unauthorized', 'forbidden')
  export(@Query() query: ExportAuditEventsQueryDto): StreamableFile {
    const from = query.from === undefined ? undefined : new Date(query.from);
    const to = query.to === undefined ? undefined : new Date(query.to);
    if (from && to && from > to) throw new ApiError('validation_failed', 'from must not be after to');
    return new StreamableFile(Readable.from(this.chain.exportLines({ from, to })), {
      type: 'application/x-ndjson; charset=utf-8',
    });
  }
}
