import type { ApiResponseOptions } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';
import { ErrorResponseDto } from './error-response.dto.js';

/** A realistic `details` per error code, shown as the Swagger example of each documented error. */
const EXAMPLE_DETAILS: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'email must be an e-mail address such as jane@example.com',
  invalid_json: 'The body is not valid JSON.',
  weak_password:
    'The password is too easy to guess (strength 1 of 4, at least 3 needed). This is similar to a commonly used password. Add more words that are less common.',
  invalid_credentials: 'The username or password is incorrect, or the account is inactive.',
  unauthorized: 'The token has been revoked; log in again.',
  forbidden: 'This operation needs the users:manage permission.',
  user_not_found: 'No user has the id 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.',
  role_not_found: 'No role has the id 6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b.',
  document_type_not_found: 'No document type has the id 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.',
  conflict: 'A user with this email already exists.',
  last_admin: 'This change would leave no active user holding users:manage.',
  role_in_use: 'The role editor is held by 3 user(s); take it from them first.',
  document_type_in_use: 'The document type Contract is used by 12 document(s).',
  too_many_requests: 'Too many login attempts; retry after 300 seconds.',
};

/**
 * Swagger response options for one status: the error schema, a description, and one named
 * example per code (all codes must share the status). E.g.
 * `@ApiConflictResponse(errorExamples('conflict or last_admin', ['conflict', 'last_admin']))`.
 */
export function errorExamples(description: string, codes: ErrorCode[]): ApiResponseOptions {
  return {
    type: ErrorResponseDto,
    description,
    examples: Object.fromEntries(
      codes.map((code) => [
        code,
        {
          summary: `${ERROR_STATUS[code]} ${code}`,
          value: { error: code, details: EXAMPLE_DETAILS[code] ?? 'See the description.' },
        },
      ]),
    ),
  };
}
