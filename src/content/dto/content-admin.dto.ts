import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

const count = (description: string) =>
  ApiProperty({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, example: 0, description });

/** Live documents by the state of their current version's extraction. */
export class ContentCountsDto {
  @count('Queued, or never queued (documents from before extraction, until re-indexed)')
  pending: number;

  @count('Being read now')
  processing: number;

  @count('Text searchable')
  indexed: number;

  @count('The file could not be read')
  failed: number;

  @count('No text is read from the format')
  unsupported: number;

  @count('Over a limit')
  too_large: number;
}

export class ContentCountsResponseDto {
  @ApiProperty({ type: ContentCountsDto })
  counts: ContentCountsDto;
}

/** Which documents' current versions to read again. */
export class ReindexContentDto {
  @ApiPropertyOptional({
    enum: ['failed', 'all'],
    default: 'failed',
    description: 'failed: only those whose extraction failed; all: every live document.',
  })
  @IsOptional()
  @IsIn(['failed', 'all'], { message: 'status must be one of: failed, all' })
  readonly status?: 'failed' | 'all';

  @ApiPropertyOptional({
    format: 'uuid',
    example: DEMO_EXAMPLE.documentTypeId,
    description: 'Only documents of this type',
  })
  @IsOptional()
  @IsUuidField()
  readonly documentTypeId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    example: DEMO_EXAMPLE.projectId,
    description: 'Only documents of this project',
  })
  @IsOptional()
  @IsUuidField()
  readonly projectId?: string;
}

export class ReindexContentResponseDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 42,
    description: 'Versions queued (those already queued or being read are not counted twice)',
  })
  queued: number;
}
