import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsString, Matches, ValidateIf } from 'class-validator';
import { JsonBounds } from '../../common/validation/json-bounds.validator.js';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';

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
 * uploadedBy, ...) are rejected with 400, never silently dropped.
 */
export class UpdateDocumentDto {
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
}
