import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { toBoolean, toInteger } from '../../common/validation/query.transforms.js';

const MAX_VERSION = 2_147_483_647;
export const MAX_VERSIONS_PAGE_SIZE = 100;
export const DEFAULT_VERSIONS_PAGE_SIZE = 20;
const MAX_PAGE = 1_000_000;

/** `?version=N` of the content routes; absent: the current version. */
export class ContentQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_VERSION,
    description: 'A version number; default the current one.',
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_VERSION)
  @IsInt({ message: 'version must be an integer' })
  readonly version?: number;
}

/** page/limit of the version list, with the notification list's bounds and defaults. */
/** `POST /api/documents/{id}/versions?unlock=true`: the lock holder releases the lock with the version. */
export class AddVersionQueryDto {
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: "true: release the caller's check-out lock of the document together with this version.",
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'unlock must be true or false' })
  readonly unlock?: boolean;
}

export class ListVersionsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_PAGE)
  @IsInt({ message: 'page must be an integer' })
  readonly page: number = 1;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_VERSIONS_PAGE_SIZE,
    default: DEFAULT_VERSIONS_PAGE_SIZE,
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_VERSIONS_PAGE_SIZE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = DEFAULT_VERSIONS_PAGE_SIZE;
}
