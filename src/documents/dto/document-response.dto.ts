import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ContentStateDto, DocumentMatchDto } from './document-content.dto.js';
import { DOCUMENT_LIMITS, FIELD_VALUES_MAX } from './update-document.dto.js';
import { DOCUMENT_STATUSES, type Document } from '../entities/document.entity.js';

export class DocumentDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'Project the document belongs to' })
  projectId: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'Type of the document' })
  documentTypeId: string;

  @ApiProperty({ minLength: 1, maxLength: DOCUMENT_LIMITS.titleMax, example: 'Q3 supplier contract' })
  title: string;

  @ApiProperty({
    maxLength: DOCUMENT_LIMITS.descriptionMax,
    example: 'Signed copy.',
    description: 'Empty string when there is no description.',
  })
  description: string;

  @ApiProperty({ maxLength: 255, example: 'contract-q3.pdf' })
  fileName: string;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 482133,
    description: 'Bytes',
  })
  fileSize: number;

  @ApiProperty({ maxLength: 127, example: 'application/pdf' })
  mimeType: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 2_147_483_647,
    example: 1,
    description: "Version number of the document's file (not changed by metadata updates)",
  })
  currentVersion: number;

  @ApiProperty({ enum: DOCUMENT_STATUSES, example: 'draft', description: 'Not changeable through PUT.' })
  status: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: DOCUMENT_LIMITS.tagMax },
    maxItems: DOCUMENT_LIMITS.tagsMax,
    example: ['contract', 'legal'],
  })
  tags: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { department: 'legal' },
    description: 'Free-form JSON object: at most 16 KiB as JSON, 8 levels deep.',
  })
  metadata: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    maxProperties: FIELD_VALUES_MAX,
    additionalProperties: { oneOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }] },
    example: { amount: 1200.5, signedOn: '2026-09-30', confidential: true, region: 'EU' },
    description:
      "Custom field values by key, as the document's type declares them (GET /api/document-types/{id}/fields): " +
      'number: number; boolean: true/false; date: "YYYY-MM-DD"; text, select, url: string; user: a user id. ' +
      'A field without a value is absent; {} when none has one.',
  })
  fields: Record<string, unknown>;

  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'Id of the uploading user' })
  uploadedBy: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-09-01T08:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-10-02T14:12:09.123Z' })
  updatedAt: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{64}$',
    maxLength: 64,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description:
      "SHA-256 (hex) of the current version's bytes, also the content's strong ETag; null only for a " +
      'document migrated from before files were stored.',
  })
  sha256: string | null;

  // Both filled in by the content feature (ContentAnswersInterceptor) on every answer of /api/documents.
  @ApiProperty({ type: ContentStateDto, description: 'Text extraction of the current version' })
  content?: ContentStateDto;

  @ApiPropertyOptional({
    type: [DocumentMatchDto],
    maxItems: 5,
    description: 'Only in the results of a q search: the fields holding its words, each with a snippet.',
  })
  matches?: DocumentMatchDto[];

  static from(document: Document): DocumentDto {
    return {
      id: document.id,
      projectId: document.projectId,
      documentTypeId: document.documentTypeId,
      title: document.title,
      description: document.description,
      fileName: document.fileName,
      fileSize: document.fileSize,
      mimeType: document.mimeType,
      currentVersion: document.currentVersion,
      status: document.status,
      tags: document.tags,
      metadata: document.metadata,
      fields: document.fields ?? {},
      uploadedBy: document.uploadedBy,
      createdAt: document.createdAt.toISOString(),
      updatedAt: document.updatedAt.toISOString(),
      sha256: document.sha256,
    };
  }
}

export class DocumentResponseDto {
  @ApiProperty({ type: DocumentDto })
  document: DocumentDto;
}
