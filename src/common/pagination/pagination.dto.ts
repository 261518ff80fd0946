import { ApiProperty } from '@nestjs/swagger';

export class PaginationDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  page: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 20 })
  limit: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 64, description: 'Exact number of matching items' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 4, description: 'ceil(total / limit); 0 when total is 0' })
  totalPages: number;

  static of(page: number, limit: number, total: number): PaginationDto {
    return { page, limit, total, totalPages: Math.ceil(total / limit) };
  }
}
