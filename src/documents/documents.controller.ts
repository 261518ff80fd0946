import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPreconditionFailedResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { ContentStateDto } from '../content/dto/content-state.dto.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { UsesPolicy, WithMemberships } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { encodeDocumentCursor } from './document-cursor.js';
import { ChangeStatusDto } from './dto/change-status.dto.js';
import { COUNT_CAP } from './document-search.repository.js';
import { DocumentListResponseDto } from './dto/document-list-response.dto.js';
import { ListDocumentsQueryDto } from './dto/list-documents-query.dto.js';
import { DocumentHistoryEntryDto, DocumentHistoryResponseDto } from './dto/document-history-response.dto.js';
import { DocumentDto, DocumentResponseDto } from './dto/document-response.dto.js';
import { UpdateDocumentDto } from './dto/update-document.dto.js';
import { etagOf } from './document-change.js';
import { DocumentsService } from './documents.service.js';
import { ApiWriteGuardErrors } from './document-write-guards.js';

@ApiTags('documents')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get()
  @WithMemberships()
  @ApiOperation({
    summary: 'List and search the documents the caller may read',
    description:
      "Documents of the caller's projects and their own uploads (every document for roles with documents:read), " +
      'never those in the trash. Filters combine with AND; q searches title, description, file name and tags ' +
      '(every word must match, the last as a prefix). Sorted by -updatedAt unless sort (or q: relevance) says ' +
      'otherwise, ties broken by id. total is exact (kept counts) unless pagination.totalIsExact is false (a ' +
      `tags or updated-range filter matching more than ${COUNT_CAP} documents: total is then a lower bound); ` +
      'a page past the end is 200 with an empty list. For deep ' +
      'walks follow pagination.nextCursor (every sort but relevance). Unknown, repeated or object-shaped ' +
      'parameters are 400.',
  })
  @ApiOkResponse({ type: DocumentListResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'validation_failed: a query parameter is invalid' })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized' })
  @ApiCommonErrors()
  async list(
    @Query() query: ListDocumentsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentListResponseDto> {
    const { documents, contents, total, totalIsExact, next } = await this.documents.list(query, user);
    return {
      documents: documents.map((document, index) =>
        Object.assign(DocumentDto.from(document), { content: ContentStateDto.fromListed(contents[index]) }),
      ),
      pagination: Object.assign(
        PaginationDto.of(
          query.cursor === undefined ? (query.page ?? 1) : null,
          query.limit,
          total,
          next ? encodeDocumentCursor(next) : null,
        ),
        { totalIsExact },
      ),
    };
  }

  @Get(':documentId')
  @ApiOperation({
    summary: 'Read a document',
    description:
      'For members of its project, its uploader and roles granting documents:read; anyone else is told it does ' +
      'not exist (404). The ETag is the one PUT and new versions take in If-Match.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({
    type: DocumentResponseDto,
    headers: {
      ETag: { description: 'Version of the returned document ("v<rowVersion>")', schema: { type: 'string' } },
    },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'validation_failed: documentId must be a UUID' })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'document_not_found' })
  @ApiCommonErrors()
  async get(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentResponseDto> {
    const document = await this.documents.get(documentId, user);
    void reply.header('etag', etagOf(document));
    return { document: DocumentDto.from(document) };
  }

  @Post(':documentId/status')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Move a document along the review workflow',
    description:
      'draft → in_review: the uploader (while a contributor) or a project manager (or documents:update). ' +
      'in_review → draft, in_review → published, published → archived, archived → draft: a project manager ' +
      'or documents:publish. Any other move is 409 invalid_transition. Recorded in the history ' +
      '(status_changed). An archived document refuses metadata changes and new versions (409 document_archived).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiBody({
    type: ChangeStatusDto,
    examples: { submit: { value: { status: 'in_review' } }, publish: { value: { status: 'published' } } },
  })
  @ApiHeader({ name: 'If-Match', required: false, description: 'ETag from a previous response; 412 when stale.' })
  @ApiOkResponse({
    type: DocumentResponseDto,
    headers: { ETag: { description: 'Version of the returned document', schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'validation_failed or invalid_json' })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized' })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'forbidden: a reader who may not make this move' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'document_not_found' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'invalid_transition: not a move of the workflow' })
  @ApiPreconditionFailedResponse({ type: ErrorResponseDto, description: 'precondition_failed: If-Match is stale' })
  @ApiWriteGuardErrors()
  @ApiCommonErrors({ body: true })
  async changeStatus(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: ChangeStatusDto,
    @CurrentUser() user: AuthenticatedUser,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentResponseDto> {
    const document = await this.documents.changeStatus(documentId, body.status, user, ifMatch);
    void reply.header('etag', etagOf(document));
    return { document: DocumentDto.from(document) };
  }

  @Put(':documentId')
  @ApiOperation({
    summary: 'Update the metadata of a document',
    description:
      'Partial update: fields left out keep their value and {} changes nothing (it answers the current ' +
      'document and ETag). tags and metadata are replaced whole, never merged. updatedAt moves forward ' +
      'on any change; id, status, uploadedBy, currentVersion, fileName and the other fields never change ' +
      'here. Allowed for the uploader and for roles whose permissions include documents: ["update"]. ' +
      'Send If-Match with the ETag of the version you edited to be told (412) when someone changed it first.',
  })
  @ApiParam({
    name: 'documentId',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
    description: 'Id of a document; `npm run demo` prints one for each demo user.',
  })
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description: 'ETag from a previous response; the update applies only if the document still has it.',
    schema: { type: 'string', maxLength: 16_384 },
  })
  @ApiOkResponse({
    type: DocumentResponseDto,
    description: 'The document as it is now, with its ETag.',
    headers: { ETag: { description: 'Version of the returned document', schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'validation_failed, invalid_json or bad_request: the body, the id or the request line is invalid',
  })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized: no valid bearer token' })
  @ApiForbiddenResponse({
    type: ErrorResponseDto,
    description: 'forbidden: not the uploader and no documents:update permission',
  })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'document_not_found' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'document_archived: move it back to draft first' })
  @ApiPreconditionFailedResponse({
    type: ErrorResponseDto,
    description: 'precondition_failed: If-Match is stale',
    headers: {
      ETag: { description: 'Current version of the document, to retry with', schema: { type: 'string' } },
    },
  })
  @ApiWriteGuardErrors()
  @ApiCommonErrors({ body: true })
  async update(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: UpdateDocumentDto,
    @CurrentUser() user: AuthenticatedUser,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentResponseDto> {
    const document = await this.documents.update(documentId, body, user, ifMatch);
    void reply.header('etag', etagOf(document));
    return { document: DocumentDto.from(document) };
  }

  @Get(':documentId/history')
  @ApiOperation({
    summary: 'List the recorded changes of a document',
    description:
      'Newest first, at most 500 entries: creation, metadata changes, new versions, status changes, deletes and ' +
      'restores (action). Visible to every reader of the document.',
  })
  @ApiParam({
    name: 'documentId',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
    description: 'Id of a document; `npm run demo` prints one for each demo user.',
  })
  @ApiOkResponse({ type: DocumentHistoryResponseDto, description: 'The recorded changes, newest first.' })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized: no valid bearer token' })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'forbidden' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'document_not_found' })
  @ApiCommonErrors()
  async history(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentHistoryResponseDto> {
    const entries = await this.documents.history(documentId, user);
    return { history: entries.map((entry) => DocumentHistoryEntryDto.from(entry)) };
  }
}
