import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { RequirePermission } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import {
  CreateLegalHoldDto,
  LegalHoldDto,
  LegalHoldEnvelopeDto,
  LegalHoldListResponseDto,
} from './dto/legal-hold.dto.js';
import { LegalHoldsService } from './legal-holds.service.js';

const HOLD_ID = { name: 'legalHoldId', format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b' } as const;

@ApiTags('legal-holds')
@ApiBearerAuth()
@ApiErrors('unauthorized')
@Controller('api/legal-holds')
export class LegalHoldsController {
  constructor(private readonly holds: LegalHoldsService) {}

  @RequirePermission('legalHolds:manage')
  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Place a legal hold',
    description:
      'Holds the named documents and/or every document of a project (present and future): until the hold is ' +
      'released they cannot be moved to the trash, purged, deleted permanently or retained away (409 ' +
      'legal_hold naming the hold); their metadata and new versions stay allowed. Audited (legal_hold.created).',
  })
  @ApiCreatedResponse({ type: LegalHoldEnvelopeDto })
  @ApiErrors('forbidden', 'document_not_found', 'project_not_found')
  async create(
    @Body() body: CreateLegalHoldDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LegalHoldEnvelopeDto> {
    const created = await this.holds.create(body, user, context);
    void reply.header('location', `/api/legal-holds/${created.hold.id}`);
    return { legalHold: LegalHoldDto.from(created) };
  }

  @RequirePermission('legalHolds:manage')
  @Get()
  @ApiOperation({ summary: 'List legal holds with their documents', description: 'Newest first.' })
  @ApiOkResponse({ type: LegalHoldListResponseDto })
  @ApiErrors('forbidden')
  async list(): Promise<LegalHoldListResponseDto> {
    return { legalHolds: (await this.holds.list()).map((hold) => LegalHoldDto.from(hold)) };
  }

  @RequirePermission('legalHolds:manage')
  @Get(':legalHoldId')
  @ApiParam(HOLD_ID)
  @ApiOperation({
    summary: 'A legal hold with its documents',
    description: 'The documents it names and, for a project hold, every document of the project (the first 1,000).',
  })
  @ApiOkResponse({ type: LegalHoldEnvelopeDto })
  @ApiErrors('forbidden', 'legal_hold_not_found')
  async get(@Param('legalHoldId', uuidParam('legalHoldId')) id: string): Promise<LegalHoldEnvelopeDto> {
    return { legalHold: LegalHoldDto.from(await this.holds.get(id)) };
  }

  @RequirePermission('legalHolds:manage')
  @Delete(':legalHoldId')
  @HttpCode(204)
  @ApiParam(HOLD_ID)
  @ApiOperation({
    summary: 'Release a legal hold',
    description: 'Its documents may be removed again (unless another hold covers them). Audited (legal_hold.released).',
  })
  @ApiNoContentResponse({ description: 'Released' })
  @ApiErrors('forbidden', 'legal_hold_not_found')
  async release(
    @Param('legalHoldId', uuidParam('legalHoldId')) id: string,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.holds.release(id, context);
  }
}
