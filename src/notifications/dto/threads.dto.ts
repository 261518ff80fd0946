import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';
import { NotificationDto } from './notification-list-response.dto.js';

const MAX_THREADS_PAGE = 100;
const DEFAULT_THREADS_PAGE = 20;

export class ListThreadsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_THREADS_PAGE,
    default: DEFAULT_THREADS_PAGE,
  })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(MAX_THREADS_PAGE)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = DEFAULT_THREADS_PAGE;

  @ApiPropertyOptional({
    description: 'Opaque position returned as nextCursor: the list continues right after that thread.',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

export class ThreadDto {
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The document of the thread; null for a non-document source',
    example: '0f8fad5b-d9cb-469f-a165-70867728950e',
  })
  documentId: string | null;

  @ApiProperty({
    maxLength: 64,
    description: '"document", or the event type of a non-document thread (e.g. project.member_added)',
    example: 'document',
  })
  source: string;

  @ApiProperty({
    maxLength: 255,
    description: "The document's current title; the newest notification's subject when there is none",
    example: 'Quarterly report',
  })
  title: string;

  @ApiProperty({ type: NotificationDto, description: 'The newest in-app notification of the thread' })
  newest: NotificationDto;

  @ApiProperty({ minimum: 0, description: 'Unread in-app notifications of the thread (exact)', example: 2 })
  unread: number;

  @ApiProperty({ minimum: 1, description: 'In-app notifications of the thread (exact)', example: 5 })
  total: number;
}

export class ThreadListResponseDto {
  @ApiProperty({
    type: [ThreadDto],
    maxItems: MAX_THREADS_PAGE,
    description: 'Newest first (by their newest notification)',
  })
  threads: ThreadDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 200,
    description: 'Pass as cursor for the next page; null on the last page',
  })
  nextCursor: string | null;
}

export class SnoozeDto {
  @ApiProperty({
    format: 'date-time',
    description: 'E-mails wait until then (in the future, at most 366 days ahead)',
    example: '2026-11-28T07:00:00Z',
  })
  @IsDefined({ message: 'until is required' })
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time, e.g. 2026-11-28T07:00:00Z' })
  readonly until: string;
}

export class SnoozeResponseDto {
  @ApiProperty({ format: 'date-time', example: '2026-11-28T07:00:00.000Z' })
  snoozedUntil: string;
}
