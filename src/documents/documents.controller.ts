import { Body, Controller, Get, Headers, Param, Put, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
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
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { DocumentHistoryEntryDto, DocumentHistoryResponseDto } from './dto/document-history-response.dto.js';
import { DocumentDto, DocumentResponseDto } from './dto/document-response.dto.js';
import { UpdateDocumentDto } from './dto/update-document.dto.js';
import { DocumentsService, etagOf } from './documents.service.js';

@ApiTags('documents')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

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
  @ApiPreconditionFailedResponse({
    type: ErrorResponseDto,
    description: 'precondition_failed: If-Match is stale',
    headers: {
      ETag: { description: 'Current version of the document, to retry with', schema: { type: 'string' } },
    },
  })
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
    description: 'Newest first, at most 500 entries. Visible to the users who may update the document.',
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
