import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import { DOCUMENT_LIMITS, DocumentMetadataDto } from './update-document.dto.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

/** Text parts a create form may carry: its six single fields and up to one part per tag. */
export const DOCUMENT_FORM_FIELDS = 6 + DOCUMENT_LIMITS.tagsMax;

/**
 * The text fields of `POST /api/documents`, once collected from the form (tags from the repeated
 * `tags` field, metadata parsed from its JSON text): validated by the same rules as the metadata
 * update, which it extends, plus the project and type.
 */
export class CreateDocumentDto extends DocumentMetadataDto {
  @ApiProperty({
    format: 'uuid',
    example: DEMO_EXAMPLE.projectId,
    description: 'Project to create the document in (you must be a contributor or manager).',
  })
  @IsUuidField()
  readonly projectId: string;

  @ApiProperty({
    format: 'uuid',
    example: DEMO_EXAMPLE.documentTypeId,
    description: 'Type of the document (GET /api/document-types).',
  })
  @IsUuidField()
  readonly documentTypeId: string;
}

/**
 * The multipart/form-data body of `POST /api/documents` as Swagger shows it: the same fields and
 * bounds as CreateDocumentDto, except that `metadata` travels as JSON text, plus the file part.
 */
export class CreateDocumentFormDto extends OmitType(CreateDocumentDto, [
  'metadata',
  'title',
  'tags',
  'fields',
] as const) {
  @ApiPropertyOptional({
    type: 'array',
    // One part may carry every tag, comma-separated.
    items: { type: 'string', maxLength: DOCUMENT_LIMITS.tagsMax * (DOCUMENT_LIMITS.tagMax + 1) },
    maxItems: DOCUMENT_LIMITS.tagsMax,
    example: ['contract', 'legal'],
    description:
      'One part per tag, or comma-separated tags in one part (what Swagger UI sends): "contract,legal". Each ' +
      'tag is trimmed and empty pieces between commas dropped; then 1-64 characters each (a blank part is refused), ' +
      'at most 100, duplicates dropped.',
  })
  readonly tags?: string[];

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 255,
    example: 'Q3 supplier contract',
    description: 'Default: the file name without its extension. 1-255 characters, not blank.',
  })
  readonly title?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 65_536,
    example: '{"department":"legal"}',
    description:
      'JSON text of an object (at most 16 KiB as JSON, 8 levels deep, no "__proto__", "constructor" or ' +
      '"prototype" keys). Default {}.',
  })
  readonly metadata?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 65_536,
    example: '{"amount":1200.5,"signedOn":"2026-09-30"}',
    description:
      "JSON text of the custom field values by key (as `fields` of PUT /api/documents/{id}); the document type's " +
      'required fields must have one. Checked before any byte of the file is stored.',
  })
  readonly fields?: string;

  @ApiProperty({
    type: 'string',
    format: 'binary',
    description:
      'The file: exactly one part named "file", after every text field. Not empty, at most UPLOAD_MAX_BYTES; ' +
      'its file name (last path segment kept) 1-255 characters without control or bidi characters.',
  })
  readonly file: unknown;
}
