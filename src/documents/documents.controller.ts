import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { UsesPolicy, WithMemberships } from '../common/http/route-access.js';
import { ContentStateDto } from './dto/document-content.dto.js';
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
import { FieldParameters, FieldParametersInterceptor } from './field-parameters.js';

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
      'parameters are 400. Custom fields (with documentTypeId, whose fields they name): field.<key>=value ' +
      '(equality), field.<key>[gte]= and field.<key>[lte]= (number and date ranges), sort=field.<key> or ' +
      '-field.<key> (only documents with a value for it; not with q); their totals are counted up to ' +
      `${COUNT_CAP} (totalIsExact false beyond).`,
  })
  @ApiQuery({
    name: 'field.<key>',
    required: false,
    schema: { type: 'string', maxLength: 500 },
    example: 'EU',
    description:
      'A custom field of documentTypeId: field.region=EU, field.amount[gte]=100, field.signedOn[lte]=2026-12-31. ' +
      'Values as the field type writes them (number, YYYY-MM-DD, true/false, text); an unknown key or a value ' +
      'of the wrong type is 400 validation_failed.',
  })
  @ApiOkResponse({ type: DocumentListResponseDto })
  @ApiErrors('unauthorized')
  @UseInterceptors(FieldParametersInterceptor)
  async list(
    @Query() query: ListDocumentsQueryDto,
    @FieldParameters() fieldParameters: Record<string, string>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentListResponseDto> {
    const { documents, contents, total, totalIsExact, next } = await this.documents.list(query, user, fieldParameters);
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
  @ApiErrors('unauthorized', 'document_not_found')
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
  @ApiErrors(
    'unauthorized',
    'forbidden',
    'document_not_found',
    'invalid_transition',
    'precondition_failed',
    'document_locked',
  )
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
      'Send If-Match with the ETag of the version you edited to be told (412) when someone changed it first. ' +
      'fields (custom field values) are merged, null removes one; documentTypeId moves the document to another ' +
      "type and checks its values against that type's fields (values of keys it does not declare are dropped).",
  })
  @ApiParam({
    name: 'documentId',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
    description: 'Id of a document; `npm run demo` prints one for each demo user.',
  })
  // The first example is what "Try it out" sends: it must suit any demo document (the demo types declare no fields).
  @ApiBody({
    type: UpdateDocumentDto,
    examples: {
      metadata: {
        summary: 'Title, description, tags and metadata',
        value: {
          title: 'Q3 supplier contract',
          description: 'Signed copy, countersigned by legal on 2026-09-30.',
          tags: ['contract', 'legal'],
          metadata: { department: 'legal', confidential: true },
        },
      },
      fields: {
        summary: 'Custom field values (keys the document type declares)',
        value: { fields: { amount: 1200.5, signedOn: '2026-09-30', region: 'EU' } },
      },
    },
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
  @ApiErrors(
    'unauthorized',
    'forbidden',
    'document_not_found',
    'document_archived',
    'precondition_failed',
    'document_locked',
  )
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
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found')
  async history(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentHistoryResponseDto> {
    const entries = await this.documents.history(documentId, user);
    return { history: entries.map((entry) => DocumentHistoryEntryDto.from(entry)) };
  }
}
