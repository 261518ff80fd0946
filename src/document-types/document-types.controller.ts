import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { errorExamples } from '../common/errors/error-examples.js';
import { Authenticated, RequirePermission } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { DocumentTypesService } from './document-types.service.js';
import {
  CreateDocumentTypeDto,
  DocumentTypeDto,
  DocumentTypeEnvelopeDto,
  DocumentTypeListResponseDto,
  UpdateDocumentTypeDto,
} from './dto/document-type.dto.js';

const TYPE_ID = { name: 'documentTypeId', format: 'uuid', example: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' } as const;
const FORBIDDEN = errorExamples('forbidden: the caller lacks documentTypes:manage', ['forbidden']);

@ApiTags('document-types')
@ApiBearerAuth()
@ApiUnauthorizedResponse(errorExamples('unauthorized: missing, invalid or revoked token', ['unauthorized']))
@Controller('api/document-types')
export class DocumentTypesController {
  constructor(private readonly types: DocumentTypesService) {}

  @Authenticated()
  @Get()
  @ApiOperation({ summary: 'List document types', description: 'Every type, by name; any authenticated user.' })
  @ApiOkResponse({ type: DocumentTypeListResponseDto })
  @ApiCommonErrors()
  async list(): Promise<DocumentTypeListResponseDto> {
    return { documentTypes: (await this.types.list()).map((type) => DocumentTypeDto.from(type)) };
  }

  @RequirePermission('documentTypes:manage')
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a document type', description: 'Answers 201 with Location.' })
  @ApiCreatedResponse({ type: DocumentTypeEnvelopeDto })
  @ApiBadRequestResponse(errorExamples('validation_failed', ['validation_failed']))
  @ApiForbiddenResponse(FORBIDDEN)
  @ApiConflictResponse(errorExamples('conflict: the name is taken (ignoring case)', ['conflict']))
  @ApiCommonErrors({ body: true })
  async create(
    @Body() body: CreateDocumentTypeDto,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentTypeEnvelopeDto> {
    const type = await this.types.create(body, context);
    void reply.header('location', `/api/document-types/${type.id}`);
    return { documentType: DocumentTypeDto.from(type) };
  }

  @RequirePermission('documentTypes:manage')
  @Patch(':documentTypeId')
  @ApiParam(TYPE_ID)
  @ApiOperation({ summary: 'Change a document type', description: 'Omitted fields keep their value.' })
  @ApiOkResponse({ type: DocumentTypeEnvelopeDto })
  @ApiBadRequestResponse(errorExamples('validation_failed', ['validation_failed']))
  @ApiForbiddenResponse(FORBIDDEN)
  @ApiNotFoundResponse(errorExamples('document_type_not_found', ['document_type_not_found']))
  @ApiConflictResponse(errorExamples('conflict: the name is taken (ignoring case)', ['conflict']))
  @ApiCommonErrors({ body: true })
  async update(
    @Param('documentTypeId', uuidParam('documentTypeId')) id: string,
    @Body() body: UpdateDocumentTypeDto,
    @RequestAudit() context: AuditContext,
  ): Promise<DocumentTypeEnvelopeDto> {
    return { documentType: DocumentTypeDto.from(await this.types.update(id, body, context)) };
  }

  @RequirePermission('documentTypes:manage')
  @Delete(':documentTypeId')
  @HttpCode(204)
  @ApiParam(TYPE_ID)
  @ApiOperation({ summary: 'Delete a document type', description: 'Only a type no document uses.' })
  @ApiNoContentResponse({ description: 'The type is deleted.' })
  @ApiBadRequestResponse(errorExamples('validation_failed: documentTypeId is not a UUID', ['validation_failed']))
  @ApiForbiddenResponse(FORBIDDEN)
  @ApiNotFoundResponse(errorExamples('document_type_not_found', ['document_type_not_found']))
  @ApiConflictResponse(errorExamples('document_type_in_use: documents have this type', ['document_type_in_use']))
  @ApiCommonErrors()
  async delete(
    @Param('documentTypeId', uuidParam('documentTypeId')) id: string,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.types.delete(id, context);
  }
}
