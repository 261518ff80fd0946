import { ApiProperty } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export class ErrorResponseDto {
  @ApiProperty({
    description: 'Stable, machine-readable error identifier.',
    enum: ERROR_CODES,
    example: 'validation_failed',
  })
  error: ErrorCode;

  @ApiProperty({
    description: 'A sentence a person can act on; for validation errors it names the field and the rule.',
    example: 'title must be shorter than or equal to 255 characters',
  })
  details: string;
}
