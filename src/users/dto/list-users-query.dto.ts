import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toBoolean, toInteger } from '../../common/validation/query.transforms.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import { LIST_USERS_DEFAULT_PAGE_SIZE, LIST_USERS_MAX_PAGE, LIST_USERS_MAX_PAGE_SIZE } from './user-input.dto.js';

/** Filters combine with AND. Each parameter may appear once; unknown parameters are rejected. */
export class ListUsersQueryDto {
  @ApiPropertyOptional({
    example: 'car',
    maxLength: 100,
    description: 'Matches the start of the username, e-mail address, first or last name, ignoring case.',
  })
  @IsOptional()
  @NoControlCharacters()
  @TextLength(1, 100)
  @IsString({ message: 'q must be given once, as a string' })
  readonly q?: string;

  @ApiPropertyOptional({ type: 'boolean', description: 'true: active users only; false: deactivated users only' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'isActive must be true or false' })
  readonly isActive?: boolean;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only holders of this role' })
  @IsOptional()
  @IsUuidField()
  readonly roleId?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: LIST_USERS_MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(LIST_USERS_MAX_PAGE)
  @IsInt({ message: 'page must be an integer' })
  readonly page: number = 1;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: LIST_USERS_MAX_PAGE_SIZE,
    default: LIST_USERS_DEFAULT_PAGE_SIZE,
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(LIST_USERS_MAX_PAGE_SIZE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = LIST_USERS_DEFAULT_PAGE_SIZE;
}
