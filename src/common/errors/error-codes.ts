/**
 * The stable error identifiers this API answers with: the HTTP status of each, and one realistic
 * `details` sentence that the OpenAPI document shows as its example (@ApiErrors). Clients branch
 * on `error`; `details` is for people. A new code is one entry here.
 */
export const ERROR_CATALOGUE = {
  validation_failed: {
    status: 400,
    example: 'title must be shorter than or equal to 255 characters (Unicode code points)',
  },
  invalid_json: { status: 400, example: 'The request body is not valid JSON.' },
  bad_request: { status: 400, example: 'The request is not valid HTTP.' },
  webhook_url_refused: {
    status: 400,
    example:
      'the host hooks.internal resolves to a private or reserved address; list it in WEBHOOK_ALLOWED_HOSTS to allow it',
  },
  weak_password: {
    status: 400,
    example:
      'The password is too easy to guess (strength 1 of 4, at least 3 needed). This is similar to a commonly used password. Add more words that are less common.',
  },
  invalid_credentials: { status: 401, example: 'The username or password is incorrect, or the account is inactive.' },
  unauthorized: { status: 401, example: 'The token has expired; log in again.' },
  forbidden: {
    status: 403,
    example: 'Only the uploader of this document or a user whose role grants documents:update may change it.',
  },
  document_not_found: { status: 404, example: 'No document has the id 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f.' },
  user_not_found: { status: 404, example: 'No user has the id 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.' },
  role_not_found: { status: 404, example: 'No role has the id 6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b.' },
  document_type_not_found: {
    status: 404,
    example: 'No document type has the id 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.',
  },
  project_not_found: { status: 404, example: 'No project has the id 2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d.' },
  member_not_found: {
    status: 404,
    example: 'The user 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed is not a member of this project.',
  },
  notification_not_found: {
    status: 404,
    example: 'You have no notification with the id 7d1e3f5a-9b2c-4d6e-8f0a-1b3c5d7e9f2a.',
  },
  comment_not_found: {
    status: 404,
    example: 'No comment with id 5f0c2b7e-8a1d-4c3e-9b2f-1a2b3c4d5e6f that you can read.',
  },
  webhook_not_found: {
    status: 404,
    example: 'No webhook with id 3f6c1a2b-4d5e-4f70-8a9b-0c1d2e3f4a5b that you manage.',
  },
  webhook_delivery_not_found: {
    status: 404,
    example: 'The webhook has no delivery with id 7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.',
  },
  saved_search_not_found: {
    status: 404,
    example: 'You have no saved search with id 4b5c6d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d.',
  },
  legal_hold_not_found: { status: 404, example: 'No legal hold has the id 4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b.' },
  document_field_not_found: { status: 404, example: 'The document type has no field amount.' },
  route_not_found: { status: 404, example: 'No such route; see /docs for the operations this service offers.' },
  method_not_allowed: {
    status: 405,
    example: 'The method DELETE is not allowed on /api/auth/login; the route answers POST.',
  },
  request_timeout: { status: 408, example: 'The request was not received in time; send it again.' },
  conflict: { status: 409, example: 'A user with this username already exists.' },
  idempotency_key_in_flight: {
    status: 409,
    example: 'A request with this Idempotency-Key is still at work; retry after it has been answered.',
  },
  idempotency_key_reused: {
    status: 422,
    example: 'This Idempotency-Key was used with a different request in the last 24 hours; use a new key.',
  },
  last_admin: { status: 409, example: 'This change would leave no active user holding users:manage.' },
  role_in_use: { status: 409, example: 'The role editor is held by 3 user(s); take it from them first.' },
  document_type_in_use: { status: 409, example: 'The document type Contract is used by 12 document(s).' },
  last_manager: { status: 409, example: 'A project keeps at least one manager; make another member manager first.' },
  invalid_transition: { status: 409, example: 'A document in published cannot move to in_review; allowed: archived.' },
  document_archived: { status: 409, example: 'The document is archived; move it back to draft before changing it.' },
  webhook_disabled: {
    status: 409,
    example: 'The webhook is disabled; enable it (PATCH {"enabled": true}) before replaying deliveries.',
  },
  legal_hold: {
    status: 409,
    example:
      'The document is under the legal hold "Smith v. Acme" (4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b): it cannot be deleted, purged or retained away until the hold is released.',
  },
  document_field_in_use: {
    status: 409,
    example: '12 document(s) hold a value of the field amount; delete with ?force=true to remove the values too.',
  },
  precondition_failed: {
    status: 412,
    example: 'If-Match does not match the document\'s current ETag "v7"; fetch it again and retry.',
  },
  payload_too_large: { status: 413, example: 'The request body is larger than this service accepts.' },
  unsupported_media_type: {
    status: 415,
    example: 'Send the request body as JSON with Content-Type: application/json.',
  },
  too_many_requests: { status: 429, example: 'Too many login attempts; retry after 42 seconds.' },
  headers_too_large: { status: 431, example: 'The request line or headers are too large.' },
  internal_error: { status: 500, example: 'An unexpected error occurred; it has been logged.' },
  file_unavailable: {
    status: 500,
    example: 'The stored file of this version is missing or damaged; an administrator has been alerted.',
  },
  service_unavailable: { status: 503, example: 'The database is temporarily unavailable; retry shortly.' },
  version_not_found: { status: 404, example: 'The document has no version 4; its current version is 3.' },
  content_not_available: {
    status: 404,
    example: 'No text of version 2 of document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is available (processing).',
  },
  preview_not_available: {
    status: 404,
    example: 'No preview of version 2 of document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is available (pending).',
  },
  range_not_satisfiable: { status: 416, example: 'The range starts past the end of the file (2048 bytes).' },
  insufficient_storage: { status: 507, example: 'The file store is full; nothing was kept. Try again later.' },
  document_locked: {
    status: 423,
    example:
      'The document is checked out by alice until 2026-11-27T15:30:00.000Z; only alice may change it until then.',
  },
  lock_not_found: { status: 404, example: 'The document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is not checked out.' },
  review_not_found: { status: 404, example: 'The document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f has no open review.' },
  share_not_found: { status: 404, example: 'This link does not exist or is no longer available.' },
  share_password_required: {
    status: 401,
    example: 'This link needs its password; send it in the X-Share-Password header.',
  },
} as const satisfies Record<string, { status: number; example: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
export const ERROR_STATUS = Object.fromEntries(
  ERROR_CODES.map((code) => [code, ERROR_CATALOGUE[code].status]),
) as Record<ErrorCode, number>;
export const ERROR_EXAMPLE_DETAILS = Object.fromEntries(
  ERROR_CODES.map((code) => [code, ERROR_CATALOGUE[code].example]),
) as Record<ErrorCode, string>;

/** A failure with a stable code; services throw it and the global filter turns it into HTTP. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly code: ErrorCode,
    readonly details: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(details);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
