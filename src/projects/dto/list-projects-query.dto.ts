import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';

// The same bounds as every other list (the notification list).
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE = 1_000_000;

/** Each parameter may appear once; unknown parameters are rejected. */
export class ListProjectsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_PAGE)
  @IsInt({ message: 'page must be an integer' }) // last = checked first (stopAtFirstError)
  readonly page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = DEFAULT_PAGE_SIZE;
}
