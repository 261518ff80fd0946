import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
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
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { Authenticated, RequirePermission } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { CustomFieldsService } from './custom-fields.service.js';
import {
  CreateDocumentFieldDto,
  DeleteDocumentFieldQueryDto,
  DocumentFieldDto,
  DocumentFieldEnvelopeDto,
  DocumentFieldListResponseDto,
  UpdateDocumentFieldDto,
} from './dto/document-field.dto.js';
import { FIELD_KEY } from './field-values.js';

const TYPE_ID = { name: 'documentTypeId', format: 'uuid', example: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' } as const;
const KEY = {
  name: 'key',
  schema: { type: 'string', pattern: FIELD_KEY.source, maxLength: 64 },
  example: 'amount',
} as const;
@ApiTags('document-types')
@ApiBearerAuth()
@ApiErrors('unauthorized')
@Controller('api/document-types/:documentTypeId/fields')
export class CustomFieldsController {
  constructor(private readonly fields: CustomFieldsService) {}

  @Authenticated()
  @Get()
  @ApiParam(TYPE_ID)
  @ApiOperation({
    summary: "List a document type's custom fields",
    description: 'In the order they were declared; any authenticated user (uploaders need them).',
  })
  @ApiOkResponse({ type: DocumentFieldListResponseDto })
  @ApiErrors('document_type_not_found')
  async list(
    @Param('documentTypeId', uuidParam('documentTypeId')) typeId: string,
  ): Promise<DocumentFieldListResponseDto> {
    return { fields: (await this.fields.list(typeId)).map((field) => DocumentFieldDto.from(field)) };
  }

  @RequirePermission('documentTypes:manage')
  @Post()
  @HttpCode(201)
  @ApiParam(TYPE_ID)
  @ApiOperation({
    summary: 'Declare a custom field of a document type',
    description:
      'Documents of the type then carry it in `fields`, checked by its type on every write, filterable and ' +
      'sortable in GET /api/documents. Audited (document_field.created). Answers 201 with Location.',
  })
  @ApiCreatedResponse({ type: DocumentFieldEnvelopeDto })
  @ApiErrors('forbidden', 'document_type_not_found', 'conflict')
  async create(
    @Param('documentTypeId', uuidParam('documentTypeId')) typeId: string,
    @Body() body: CreateDocumentFieldDto,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DocumentFieldEnvelopeDto> {
    const field = await this.fields.create(typeId, body, context);
    void reply.header('location', `/api/document-types/${typeId}/fields/${field.key}`);
    return { field: DocumentFieldDto.from(field) };
  }

  @RequirePermission('documentTypes:manage')
  @Patch(':key')
  @ApiParam(TYPE_ID)
  @ApiParam(KEY)
  @ApiOperation({
    summary: 'Change a custom field',
    description:
      'label, required, options and min/max; omitted ones keep their value. key and type are fixed (400): ' +
      'values already stored keep their form, so changing them means a new field. Values already stored are ' +
      "not re-checked against new rules until their document's fields change. Audited (document_field.updated).",
  })
  @ApiOkResponse({ type: DocumentFieldEnvelopeDto })
  @ApiErrors('forbidden', 'document_type_not_found', 'document_field_not_found')
  async update(
    @Param('documentTypeId', uuidParam('documentTypeId')) typeId: string,
    @Param('key') key: string,
    @Body() body: UpdateDocumentFieldDto,
    @RequestAudit() context: AuditContext,
  ): Promise<DocumentFieldEnvelopeDto> {
    return { field: DocumentFieldDto.from(await this.fields.update(typeId, key, body, context)) };
  }

  @RequirePermission('documentTypes:manage')
  @Delete(':key')
  @HttpCode(204)
  @ApiParam(TYPE_ID)
  @ApiParam(KEY)
  @ApiOperation({
    summary: 'Delete a custom field',
    description:
      'Refused (409 document_field_in_use) while documents hold values of it, unless force=true: then the ' +
      "values go too (removed from every document's fields, whose ETag changes; no history entry per document). " +
      'Audited (document_field.deleted, with the number of values removed).',
  })
  @ApiNoContentResponse({ description: 'The field (and with force its values) is deleted.' })
  @ApiErrors('forbidden', 'document_type_not_found', 'document_field_not_found', 'document_field_in_use')
  async delete(
    @Param('documentTypeId', uuidParam('documentTypeId')) typeId: string,
    @Param('key') key: string,
    @Query() query: DeleteDocumentFieldQueryDto,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.fields.delete(typeId, key, query.force ?? false, context);
  }
}
