import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsString, Matches, ValidateIf } from 'class-validator';
import { JsonBounds } from '../../common/validation/json-bounds.validator.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

/** At most this many custom field values (a type declares at most 50 fields). */
export const FIELD_VALUES_MAX = 50;

export const DOCUMENT_LIMITS = {
  titleMax: 255,
  descriptionMax: 10_000,
  tagsMax: 100,
  tagMax: 64,
  metadataMaxBytes: 16 * 1024,
  metadataMaxDepth: 8,
} as const;

// Unlike @IsOptional(), this lets null through to the type checks: null is not "omitted", it is invalid.
const isPresent = (_object: object, value: unknown) => value !== undefined;

const trimEach = ({ value }: { value: unknown }) =>
  Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value;

/**
 * Every field is optional; an omitted field keeps its value. Unknown fields (id, status,
 * uploadedBy, ...) are rejected with 400, never silently dropped. Shared by the update and the upload form.
 */
export class DocumentMetadataDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: DOCUMENT_LIMITS.titleMax,
    pattern: '\\S',
    example: 'Q3 supplier contract',
    description: '1-255 characters (Unicode code points), not blank.',
  })
  @ValidateIf(isPresent)
  @NoControlCharacters()
  @Matches(/\S/, { message: 'title must not be blank' })
  @TextLength(1, DOCUMENT_LIMITS.titleMax)
  @IsString() // decorators run bottom-up: the type check comes first
  readonly title?: string;

  @ApiPropertyOptional({
    maxLength: DOCUMENT_LIMITS.descriptionMax,
    example: 'Signed copy, countersigned by legal on 2026-09-30.',
    description:
      'At most 10,000 characters (Unicode code points); may be empty. Tabs and newlines are allowed; other ' +
      'control characters are not.',
  })
  @ValidateIf(isPresent)
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, DOCUMENT_LIMITS.descriptionMax)
  @IsString()
  readonly description?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: DOCUMENT_LIMITS.tagMax, pattern: '\\S' },
    maxItems: DOCUMENT_LIMITS.tagsMax,
    example: ['contract', 'legal'],
    description:
      'Replaces the whole set. Each tag is trimmed and must then be 1-64 characters (Unicode code points); ' +
      'duplicates are dropped, ' +
      'keeping the order of first appearance. [] clears the tags.',
  })
  @ValidateIf(isPresent)
  @Transform(trimEach)
  @NoControlCharacters({ each: true })
  @TextLength(1, DOCUMENT_LIMITS.tagMax, {
    each: true,
    message: 'each tag must be 1-64 characters (Unicode code points) long after trimming',
  })
  @IsString({ each: true, message: 'each tag must be a string' })
  @ArrayMaxSize(DOCUMENT_LIMITS.tagsMax)
  @IsArray({ message: 'tags must be an array of strings' })
  readonly tags?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { department: 'legal', reviewers: ['bob'], confidential: true },
    description:
      'Free-form JSON object; replaces the whole object ({} clears it). At most 16 KiB as JSON, 8 levels deep, ' +
      'and no "__proto__", "constructor" or "prototype" keys.',
  })
  @ValidateIf(isPresent)
  @JsonBounds({ maxBytes: DOCUMENT_LIMITS.metadataMaxBytes, maxDepth: DOCUMENT_LIMITS.metadataMaxDepth })
  @IsObject({ message: 'metadata must be a JSON object' })
  readonly metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    maxProperties: FIELD_VALUES_MAX,
    additionalProperties: {
      oneOf: [
        { type: 'string', maxLength: 500, nullable: true },
        { type: 'number', nullable: true },
        { type: 'boolean', nullable: true },
      ],
    },
    example: { amount: 1200.5, signedOn: '2026-09-30', confidential: true, region: 'EU' },
    description:
      'Custom field values by key, as the document type declares them (GET /api/document-types/{id}/fields): ' +
      'text, select, url: string; number: number; date: "YYYY-MM-DD"; boolean: true/false; user: a user id. ' +
      'Merged into the current values: a key left out keeps its value, null removes it (a required field cannot ' +
      "be removed). An unknown key, a value of the wrong type, outside min/max, not among a select's options, " +
      'a user id that is not an active user or a url that is not http(s) is 400 validation_failed naming the field.',
  })
  @ValidateIf(isPresent)
  @JsonBounds({ maxBytes: DOCUMENT_LIMITS.metadataMaxBytes, maxDepth: 2 })
  @IsObject({ message: 'fields must be a JSON object' })
  readonly fields?: Record<string, unknown>;
}

/** PUT /api/documents/{id}: the metadata, plus a new type (its fields are checked again). */
export class UpdateDocumentDto extends DocumentMetadataDto {
  @ApiPropertyOptional({
    format: 'uuid',
    example: DEMO_EXAMPLE.documentTypeId,
    description:
      "Moves the document to another type. Its field values are checked against the new type's fields: values " +
      'of keys the new type does not declare are dropped, the others must be valid for it, and its required ' +
      'fields must then have a value (send them in fields).',
  })
  @ValidateIf(isPresent)
  @IsUuidField()
  readonly documentTypeId?: string;
}
