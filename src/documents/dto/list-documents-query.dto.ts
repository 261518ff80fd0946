import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { toBoolean, toInteger } from '../../common/validation/query.transforms.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import { DOCUMENT_SORTS, type DocumentSort } from '../document-search.repository.js';
import { DOCUMENT_STATUSES, type DocumentStatus } from '../entities/document.entity.js';

/** The fixed sorts, or a custom field's key (src/custom-fields FIELD_KEY) with an optional '-'. */
const SORT_PATTERN = new RegExp(`^(${DOCUMENT_SORTS.join('|')}|-?field\\.[a-z][a-zA-Z0-9_]{0,63})$`);

export const DOCUMENT_LIST_LIMITS = {
  maxPageSize: 100,
  defaultPageSize: 20,
  maxPage: 1_000_000,
  qMax: 200,
  tagsMax: 500,
} as const;

/** Paging shared by the list and the trash (page/limit as the notification list). */
export class DocumentPageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: DOCUMENT_LIST_LIMITS.maxPage, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(DOCUMENT_LIST_LIMITS.maxPage)
  @IsInt({ message: 'page must be an integer' })
  // No initializer: a cursor request must be able to tell that page was left out.
  readonly page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: DOCUMENT_LIST_LIMITS.maxPageSize,
    default: DOCUMENT_LIST_LIMITS.defaultPageSize,
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(DOCUMENT_LIST_LIMITS.maxPageSize)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = DOCUMENT_LIST_LIMITS.defaultPageSize;
}

/** Filters combine with AND. Each parameter may appear once; unknown parameters are rejected. */
export class ListDocumentsQueryDto extends DocumentPageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only documents of this project' })
  @IsOptional()
  @IsUuidField()
  readonly projectId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only documents of this type' })
  @IsOptional()
  @IsUuidField()
  readonly documentTypeId?: string;

  @ApiPropertyOptional({ enum: DOCUMENT_STATUSES, description: 'Only documents in this status' })
  @IsOptional()
  @IsIn(DOCUMENT_STATUSES, { message: `status must be given once, as one of: ${DOCUMENT_STATUSES.join(', ')}` })
  readonly status?: DocumentStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only documents uploaded by this user' })
  @IsOptional()
  @IsUuidField()
  readonly uploadedBy?: string;

  @ApiPropertyOptional({
    maxLength: DOCUMENT_LIST_LIMITS.tagsMax,
    example: 'contract,legal',
    description:
      'Comma-separated tags; a document must carry every one (exact, case-sensitive match; each is trimmed, ' +
      'empty items are ignored). A tag that itself contains a comma cannot be filtered on.',
  })
  @IsOptional()
  @MaxLength(DOCUMENT_LIST_LIMITS.tagsMax)
  @IsString({ message: 'tags must be given once, as a comma-separated string' })
  readonly tags?: string;

  @ApiPropertyOptional({
    maxLength: DOCUMENT_LIST_LIMITS.qMax,
    example: 'supplier contr',
    description:
      'Full-text search over title, description, file name and tags. Words are runs of letters and digits; ' +
      'every word must match and the last one matches as a prefix ("contr" finds "contract"). Words of ' +
      'one or two characters other than the last are ignored (MariaDB does not index them). Sorts by ' +
      'relevance unless sort says otherwise.',
  })
  @IsOptional()
  @Matches(/[\p{L}\p{N}]/u, { message: 'q must contain at least one letter or digit' })
  @MaxLength(DOCUMENT_LIST_LIMITS.qMax)
  @IsString({ message: 'q must be given once, as a string' })
  readonly q?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-09-01T00:00:00Z',
    description: 'Only documents updated at or after this instant (ISO 8601 with a time zone).',
  })
  @IsOptional()
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: 'updatedFrom must name its time zone (Z or ±hh:mm)' })
  @IsISO8601({ strict: true }, { message: 'updatedFrom must be an ISO 8601 date-time' })
  @IsString({ message: 'updatedFrom must be given once, as a string' })
  readonly updatedFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-10-01T00:00:00Z',
    description: 'Only documents updated at or before this instant (ISO 8601 with a time zone).',
  })
  @IsOptional()
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: 'updatedTo must name its time zone (Z or ±hh:mm)' })
  @IsISO8601({ strict: true }, { message: 'updatedTo must be an ISO 8601 date-time' })
  @IsString({ message: 'updatedTo must be given once, as a string' })
  readonly updatedTo?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 71,
    pattern: SORT_PATTERN.source,
    example: '-updatedAt',
    description:
      `Order: one of ${DOCUMENT_SORTS.join(', ')}, or field.<key> / -field.<key> (a custom field of ` +
      'documentTypeId, which must be given; only documents with a value for it are listed; not with q). Ties are ' +
      'broken by id (in the same direction; relevance: id ascending). Default: relevance with q, else ' +
      '-updatedAt. relevance needs q and pages by page only (no cursor).',
  })
  @IsOptional()
  @Matches(SORT_PATTERN, {
    message: `sort must be given once, as one of: ${DOCUMENT_SORTS.join(', ')}, field.<key>, -field.<key>`,
  })
  @IsString({ message: 'sort must be given once, as a string' })
  readonly sort?: DocumentSort;

  @ApiPropertyOptional({
    description:
      'Opaque position returned as pagination.nextCursor. With a cursor the list continues right after that ' +
      'item (keyset pagination: as fast at any depth); page must then be left out and sort and filters must ' +
      'stay as in the request that returned it.',
    maxLength: 512,
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

export class ListTrashQueryDto extends DocumentPageQueryDto {}

export class DeleteDocumentQueryDto {
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description:
      'true: remove the document at once with its versions, history and unreferenced files (needs ' +
      'documents:purge; also for a document already in the trash). false or absent: move it to the trash.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'permanent must be true or false' })
  readonly permanent?: boolean;
}
