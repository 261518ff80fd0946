import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';

export const AUDIT_MAX_PAGE_SIZE = 100;
export const AUDIT_DEFAULT_PAGE_SIZE = 20;
export const AUDIT_MAX_PAGE = 1_000_000;

/** Filters combine with AND. Each parameter may appear once; unknown parameters are rejected. */
export class ListAuditEventsQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only events made by this user' })
  @IsOptional()
  @IsUuidField()
  readonly actorId?: string;

  @ApiPropertyOptional({ example: 'user.updated', maxLength: 64, description: 'Only events of this action' })
  @IsOptional()
  @Matches(/^[a-z_]+\.[a-z_]+$/, { message: 'action must look like user.updated' })
  @TextLength(1, 64)
  @IsString({ message: 'action must be given once, as a string' })
  readonly action?: string;

  @ApiPropertyOptional({ example: 'user', maxLength: 32, description: 'Only events about objects of this type' })
  @IsOptional()
  @NoControlCharacters()
  @TextLength(1, 32)
  @IsString({ message: 'targetType must be given once, as a string' })
  readonly targetType?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only events about this object' })
  @IsOptional()
  @IsUuidField()
  readonly targetId?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-01T00:00:00Z', description: 'Events at or after' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  readonly from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-02-01T00:00:00Z', description: 'Events before' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  readonly to?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(AUDIT_MAX_PAGE)
  @IsInt({ message: 'page must be an integer' })
  readonly page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_MAX_PAGE_SIZE, default: AUDIT_DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(AUDIT_MAX_PAGE_SIZE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = AUDIT_DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({
    description:
      'Opaque position returned as pagination.nextCursor: the list continues right after that event ' +
      '(page must then be left out; keep the same filters).',
    maxLength: 512,
    example: 'MTc2MzgwMDAwMDAwMC4xYjlkNmJjZC1iYmZkLTRiMmQtOWI1ZC1hYjhkZmJiZDRiZWQ',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}
