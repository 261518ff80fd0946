import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import { ListDocumentsQueryDto } from '../../documents/dto/list-documents-query.dto.js';
import type { SavedSearch } from '../entities/saved-search.entity.js';

/** The document list's filters a saved search keeps, validated as the list validates them. */
export class SavedSearchFiltersDto extends PickType(ListDocumentsQueryDto, [
  'projectId',
  'documentTypeId',
  'status',
  'uploadedBy',
  'tags',
] as const) {}

export const SAVED_SEARCH_NAME_MAX = 255;

export class CreateSavedSearchDto extends PickType(ListDocumentsQueryDto, ['q'] as const) {
  @ApiProperty({ minLength: 1, maxLength: SAVED_SEARCH_NAME_MAX, example: 'Open supplier contracts' })
  @NoControlCharacters()
  @Matches(/\S/, { message: 'name must not be blank' })
  @TextLength(1, SAVED_SEARCH_NAME_MAX)
  @IsString({ message: 'name must be a string' })
  readonly name: string;

  @ApiPropertyOptional({
    type: SavedSearchFiltersDto,
    example: { projectId: '2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d', status: 'in_review', tags: 'contract' },
    description: 'Filters as GET /api/documents takes them (AND); each optional.',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => SavedSearchFiltersDto)
  @IsObject({ message: 'filters must be an object' })
  readonly filters?: SavedSearchFiltersDto;

  @ApiProperty({
    example: true,
    description:
      'true: a document that newly matches (created, or changed so that it matches, and readable by you) sends you ' +
      'one search.matched notification, not again while it keeps matching.',
  })
  @IsDefined({ message: 'alert is required (true or false)' })
  @IsBoolean({ message: 'alert must be true or false' })
  readonly alert: boolean;
}

export class UpdateSavedSearchDto extends PartialType(CreateSavedSearchDto) {}

/** Paging of a saved search's documents, as the document list pages. */
export class RunSavedSearchQueryDto extends PickType(ListDocumentsQueryDto, [
  'page',
  'limit',
  'sort',
  'cursor',
] as const) {}

export class ListSavedSearchesQueryDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = 20;

  @ApiPropertyOptional({
    description: 'Opaque position returned as nextCursor: the page continues right after that saved search.',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

export class SavedSearchDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '4b5c6d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d' })
  id: string;

  @ApiProperty({ maxLength: SAVED_SEARCH_NAME_MAX, example: 'Open supplier contracts' })
  name: string;

  @ApiProperty({ type: 'string', nullable: true, maxLength: 200, example: 'supplier contr' })
  q: string | null;

  @ApiProperty({ type: SavedSearchFiltersDto, example: { status: 'in_review', tags: 'contract' } })
  filters: SavedSearchFiltersDto;

  @ApiProperty({ example: true })
  alert: boolean;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  updatedAt: string;

  static from(search: SavedSearch): SavedSearchDto {
    return {
      id: search.id,
      name: search.name,
      q: search.q,
      filters: search.filters,
      alert: search.alert,
      createdAt: search.createdAt.toISOString(),
      updatedAt: search.updatedAt.toISOString(),
    };
  }
}

export class SavedSearchListResponseDto {
  @ApiProperty({ type: [SavedSearchDto], maxItems: 100, description: 'Oldest first' })
  savedSearches: SavedSearchDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    example: null,
    description: 'Pass as cursor for the saved searches after this page; null when there are none.',
  })
  nextCursor: string | null;
}
