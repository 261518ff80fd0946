import { Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
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
import { UsesPolicy } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { etagOf } from './document-change.js';
import { DocumentTrashService } from './document-trash.service.js';
import { TrashedDocumentDto, TrashListResponseDto } from './dto/document-list-response.dto.js';
import { DeleteDocumentQueryDto, ListTrashQueryDto } from './dto/list-documents-query.dto.js';
import { DocumentDto, DocumentResponseDto } from './dto/document-response.dto.js';

/** Deleting documents (to the trash or for good), the trash list and restoring. */
@ApiTags('documents')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api/documents')
export class DocumentTrashController {
  constructor(private readonly trash: DocumentTrashService) {}

  @Get('trash')
  @ApiOperation({
    summary: 'List the documents in the trash that the caller could delete',
    description:
      'Deleted documents of projects the caller manages, their own uploads in projects where they are still a ' +
      'contributor, or every deleted document for roles with documents:delete; last deleted first. A document ' +
      'stays TRASH_RETENTION_DAYS in the trash, then the purge removes it.',
  })
  @ApiOkResponse({ type: TrashListResponseDto })
  @ApiErrors('unauthorized')
  async list(@Query() query: ListTrashQueryDto, @CurrentUser() user: AuthenticatedUser): Promise<TrashListResponseDto> {
    const { documents, total } = await this.trash.list(query, user);
    return {
      documents: documents.map((document) => TrashedDocumentDto.fromTrashed(document)),
      pagination: PaginationDto.of(query.page ?? 1, query.limit, total, null),
    };
  }

  @Delete(':documentId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a document (to the trash, or permanently)',
    description:
      'Moves the document to the trash: every route then answers 404 for it until it is restored; after ' +
      'TRASH_RETENTION_DAYS the purge removes it. Allowed for the uploader (while a contributor), a project ' +
      'manager, or documents:delete. With permanent=true (documents:purge) it is removed at once with its ' +
      'versions, history and every stored file no other version uses.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiHeader({ name: 'If-Match', required: false, description: 'ETag from a previous response; 412 when stale.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(
    'unauthorized',
    'forbidden',
    'document_not_found',
    'conflict',
    'legal_hold',
    'precondition_failed',
    'document_locked',
  )
  async remove(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: DeleteDocumentQueryDto,
    @CurrentUser() user: AuthenticatedUser,
    @Headers('if-match') ifMatch: string | undefined,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    if (query.permanent === true) await this.trash.purge(documentId, user, ifMatch, audit);
    else await this.trash.trash(documentId, user, ifMatch);
  }

  @Post(':documentId/restore')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Take a document out of the trash',
    description:
      'For those who could delete it. Recorded in the history (restored). A document not in the trash, or ' +
      'one the caller could not delete, is 404.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({
    type: DocumentResponseDto,
    headers: { ETag: { description: 'Version of the returned document', schema: { type: 'string' } } },
  })
  @ApiErrors('unauthorized', 'document_not_found', 'conflict', 'document_locked')
  async restore(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentResponseDto> {
    const document = await this.trash.restore(documentId, user);
    void reply.header('etag', etagOf(document));
    return { document: DocumentDto.from(document) };
  }
}
