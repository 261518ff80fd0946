import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
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
import { DocumentLocksService } from './document-locks.service.js';
import { DocumentLockDto, DocumentLockResponseDto, LockDocumentDto } from './dto/document-lock.dto.js';

@ApiTags('documents')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api/documents/:documentId/lock')
export class DocumentLocksController {
  constructor(private readonly locks: DocumentLocksService) {}

  @Get()
  @ApiOperation({
    summary: "A document's check-out lock",
    description: 'For readers of the document: who holds the lock and until when; no lock property when nobody does.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: DocumentLockResponseDto })
  @ApiErrors('unauthorized', 'document_not_found')
  async get(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentLockResponseDto> {
    const lock = await this.locks.get(documentId, user);
    return lock ? { lock: DocumentLockDto.from(lock) } : {};
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check a document out (take or extend its lock)',
    description:
      'For whoever may change the document. The lock holds for minutes (default 60, at most LOCK_MAX_MINUTES) and ' +
      'ends by itself; the holder may call again to extend it. While it holds, every write by someone else ' +
      '(metadata, new version, status, trash, restore) answers 423 document_locked. Audited (document.locked).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiBody({ type: LockDocumentDto, examples: { default: { value: {} }, twoHours: { value: { minutes: 120 } } } })
  @ApiOkResponse({ type: DocumentLockDto })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found', 'document_locked')
  async lock(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: LockDocumentDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<DocumentLockDto> {
    return DocumentLockDto.from(await this.locks.lock(documentId, body.minutes, user, audit));
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    summary: "Release a document's check-out lock",
    description:
      'Its holder, a manager of the project or a holder of the global documents:update. Audited (document.unlocked).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Released' })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found', 'lock_not_found')
  async unlock(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.locks.unlock(documentId, user, audit);
  }
}
