import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
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

@ApiTags('document-types')
@ApiBearerAuth()
@ApiErrors('unauthorized')
@Controller('api/document-types')
export class DocumentTypesController {
  constructor(private readonly types: DocumentTypesService) {}

  @Authenticated()
  @Get()
  @ApiOperation({ summary: 'List document types', description: 'Every type, by name; any authenticated user.' })
  @ApiOkResponse({ type: DocumentTypeListResponseDto })
  @ApiErrors()
  async list(): Promise<DocumentTypeListResponseDto> {
    return { documentTypes: (await this.types.list()).map((type) => DocumentTypeDto.from(type)) };
  }

  @RequirePermission('documentTypes:manage')
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a document type', description: 'Answers 201 with Location.' })
  @ApiCreatedResponse({ type: DocumentTypeEnvelopeDto })
  @ApiErrors('forbidden', 'conflict')
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
  @ApiErrors('forbidden', 'document_type_not_found', 'conflict')
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
  @ApiErrors('forbidden', 'document_type_not_found', 'document_type_in_use')
  async delete(
    @Param('documentTypeId', uuidParam('documentTypeId')) id: string,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.types.delete(id, context);
  }
}
