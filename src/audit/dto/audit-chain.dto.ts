import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsOptional } from 'class-validator';

export class AuditChainHeadDto {
  @ApiProperty({
    example: '9f2b6c1e0a4d8e7f3b5a9c2d1e0f4a6b8c7d9e1f2a3b4c5d6e7f8a9b0c1d2e3f',
    pattern: '^[0-9a-f]{64}$',
    minLength: 64,
    maxLength: 64,
    description: 'The hash of the last chained event (64 zeros while the chain is empty): record it elsewhere.',
  })
  hash: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 15234,
    description: 'Events in the chain; also the sequence of the last one.',
  })
  count: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-03-02T09:15:27.412Z',
    description: 'When the last chained event was recorded; null while the chain is empty.',
  })
  at: string | null;
}

/** Both bounds are optional; the range is [from, to). */
export class ExportAuditEventsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-01T00:00:00Z', description: 'Events at or after' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  readonly from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-02-01T00:00:00Z', description: 'Events before' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  readonly to?: string;
}
