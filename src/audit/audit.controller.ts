import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { errorExamples } from '../common/errors/error-examples.js';
import { RequirePermission } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { AuditService } from './audit.service.js';
import { AuditEventDto, AuditEventListResponseDto } from './dto/audit-event-response.dto.js';
import { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto.js';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/audit-events')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

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
  @ApiBadRequestResponse(errorExamples('validation_failed: a query parameter is invalid', ['validation_failed']))
  @ApiUnauthorizedResponse(errorExamples('unauthorized', ['unauthorized']))
  @ApiForbiddenResponse(errorExamples('forbidden: the caller lacks audit:read', ['forbidden']))
  @ApiCommonErrors()
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    const { events, total, page, nextCursor } = await this.audit.list(query);
    return {
      events: events.map((event) => AuditEventDto.from(event)),
      pagination: PaginationDto.of(page, query.limit, total, nextCursor),
    };
  }
}
