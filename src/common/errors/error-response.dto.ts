import { ApiProperty } from '@nestjs/swagger';
import { MAX_DETAILS_LENGTH } from './error-answer.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** The codes a client can meet: no route answers 405 (an unknown method is 404 route_not_found). */
export const DOCUMENTED_ERROR_CODES: ErrorCode[] = ERROR_CODES.filter((code) => code !== 'method_not_allowed');

/** No example here: each error response of the document shows the examples of its own codes. */
export class ErrorResponseDto {
  @ApiProperty({ description: 'Stable, machine-readable error identifier.', enum: DOCUMENTED_ERROR_CODES })
  error: ErrorCode;

  @ApiProperty({
    description: 'A sentence a person can act on; for validation errors it names the field and the rule.',
    minLength: 1,
    maxLength: MAX_DETAILS_LENGTH,
  })
  details: string;
}
