import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { CreatedShareDto, CreateShareDto, ShareLinkDto, ShareLinkListResponseDto } from './dto/share.dto.js';
import { SharesService } from './shares.service.js';

@ApiTags('shares')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api')
export class SharesController {
  constructor(private readonly shares: SharesService) {}

  @Post('documents/:documentId/shares')
  @ApiOperation({
    summary: "Make a share link to a document's file",
    description:
      'For contributors and managers of the project and documents:update. The link works without login until ' +
      'expiresAt (at most SHARE_MAX_DAYS ahead), with an optional password and download limit, for the current ' +
      'version or a given one. The token is answered this once (only its SHA-256 is kept). Audited (share.created).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiBody({
    type: CreateShareDto,
    examples: {
      week: { value: { expiresAt: '2026-12-04T17:00:00.000Z' } },
      guarded: { value: { expiresAt: '2026-12-04T17:00:00.000Z', password: 'amber-Lantern-44', maxDownloads: 5 } },
    },
  })
  @ApiCreatedResponse({ type: CreatedShareDto })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found', 'version_not_found')
  async create(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: CreateShareDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<CreatedShareDto> {
    return this.shares.create(documentId, body, user, audit);
  }

  @Get('documents/:documentId/shares')
  @ApiOperation({
    summary: "A document's share links",
    description: 'For contributors and managers of the project and documents:update; never the tokens.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: ShareLinkListResponseDto })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found')
  async list(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ShareLinkListResponseDto> {
    const links = await this.shares.list(documentId, user);
    return { shares: links.map((link) => ShareLinkDto.from(link)) };
  }

  @Delete('shares/:shareId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a share link',
    description:
      'Its creator, a manager of the project or documents:update; the link answers 404 from then on. ' +
      'Revoking twice is harmless. Audited (share.revoked).',
  })
  @ApiParam({ name: 'shareId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors('unauthorized', 'forbidden', 'share_not_found')
  async revoke(
    @Param('shareId', uuidParam('shareId')) shareId: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.shares.revoke(shareId, user, audit);
  }
}
