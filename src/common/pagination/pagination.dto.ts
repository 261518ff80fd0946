import { ApiProperty } from '@nestjs/swagger';

/** The largest integer a JSON number carries exactly: the bound of counts. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

export class PaginationDto {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 1_000_000,
    nullable: true,
    example: 1,
    description: 'The requested page; null when the request used a cursor instead.',
  })
  page: number | null;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, example: 20 })
  limit: number;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: MAX_COUNT,
    example: 64,
    description: 'Exact number of matching items',
  })
  total: number;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: MAX_COUNT,
    example: 4,
    description: 'ceil(total / limit); 0 when total is 0',
  })
  totalPages: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    example: 'MTc2MzgwMDAwMDAwMC4xYjlkNmJjZC1iYmZkLTRiMmQtOWI1ZC1hYjhkZmJiZDRiZWQ',
    description: 'Pass as cursor to get the items after this page; null when there are none.',
  })
  nextCursor: string | null;

  static of(page: number | null, limit: number, total: number, nextCursor: string | null): PaginationDto {
    return { page, limit, total, totalPages: Math.ceil(total / limit), nextCursor };
  }
}
