import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toBoolean, toInteger } from '../../common/validation/query.transforms.js';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  type NotificationStatus,
  type NotificationType,
} from '../entities/notification.entity.js';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE = 1_000_000;

/** Filters combine with AND. Each parameter may appear once; unknown parameters are rejected. */
export class ListNotificationsQueryDto {
  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES, description: 'Only notifications in this status' })
  @IsOptional()
  @IsIn(NOTIFICATION_STATUSES, { message: `status must be given once, as one of: ${NOTIFICATION_STATUSES.join(', ')}` })
  readonly status?: NotificationStatus;

  @ApiPropertyOptional({ enum: NOTIFICATION_TYPES, description: 'Only notifications of this notificationType' })
  @IsOptional()
  @IsIn(NOTIFICATION_TYPES, { message: `type must be given once, as one of: ${NOTIFICATION_TYPES.join(', ')}` })
  readonly type?: NotificationType;

  @ApiPropertyOptional({
    type: 'boolean',
    description:
      'true: only notifications whose readAt is null. false or absent: no filter. Combined with status ' +
      'by AND, so status=read&unreadOnly=true matches nothing.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'unreadOnly must be true or false' })
  readonly unreadOnly?: boolean;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_PAGE)
  @IsInt({ message: 'page must be an integer' }) // last = checked first (stopAtFirstError)
  // No initializer: a cursor request must be able to tell that page was left out (default applied in the service).
  readonly page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({
    description:
      'Opaque position returned as pagination.nextCursor. With a cursor the list continues right after ' +
      'that item (keyset pagination: as fast at any depth); page must then be left out. Filters must ' +
      'stay the same as in the request that returned the cursor.',
    // No example: Swagger UI would pre-fill it next to page's default and "Try it out" would answer 400.
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}
