import type { ErrorCode } from './error-codes.js';

/**
 * One realistic `details` sentence per error code, shown as that code's example in the OpenAPI
 * document (each error response lists the examples of its own codes). Partial so that a branch
 * adding a code still compiles; the OpenAPI e2e suite fails until the code has its example here.
 */
export const ERROR_EXAMPLE_DETAILS: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'title must be shorter than or equal to 255 characters (Unicode code points)',
  invalid_json: 'The request body is not valid JSON.',
  bad_request: 'The request is not valid HTTP.',
  invalid_credentials: 'The username or password is incorrect, or the account is inactive.',
  unauthorized: 'The token has expired; log in again.',
  forbidden: 'Only the uploader of this document or a user whose role grants documents:update may change it.',
  document_not_found: 'No document has the id 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f.',
  route_not_found: 'No such route; see /docs for the operations this service offers.',
  request_timeout: 'The request was not received in time; send it again.',
  conflict: 'A user with this username already exists.',
  precondition_failed: 'If-Match does not match the document\'s current ETag "v7"; fetch it again and retry.',
  payload_too_large: 'The request body is larger than this service accepts.',
  unsupported_media_type: 'Send the request body as JSON with Content-Type: application/json.',
  too_many_requests: 'Too many login attempts; retry after 42 seconds.',
  headers_too_large: 'The request line or headers are too large.',
  internal_error: 'An unexpected error occurred; it has been logged.',
  service_unavailable: 'The database is temporarily unavailable; retry shortly.',
};
