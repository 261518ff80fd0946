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
  weak_password:
    'The password is too easy to guess (strength 1 of 4, at least 3 needed). This is similar to a commonly used password. Add more words that are less common.',
  invalid_credentials: 'The username or password is incorrect, or the account is inactive.',
  unauthorized: 'The token has expired; log in again.',
  forbidden: 'Only the uploader of this document or a user whose role grants documents:update may change it.',
  document_not_found: 'No document has the id 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f.',
  user_not_found: 'No user has the id 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.',
  role_not_found: 'No role has the id 6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b.',
  document_type_not_found: 'No document type has the id 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.',
  project_not_found: 'No project has the id 2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d.',
  notification_not_found: 'You have no notification with the id 7d1e3f5a-9b2c-4d6e-8f0a-1b3c5d7e9f2a.',
  comment_not_found: 'No comment with id 5f0c2b7e-8a1d-4c3e-9b2f-1a2b3c4d5e6f that you can read.',
  webhook_not_found: 'No webhook with id 3f6c1a2b-4d5e-4f70-8a9b-0c1d2e3f4a5b that you manage.',
  webhook_delivery_not_found: 'The webhook has no delivery with id 7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.',
  saved_search_not_found: 'You have no saved search with id 4b5c6d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d.',
  webhook_url_refused:
    'the host hooks.internal resolves to a private or reserved address; list it in WEBHOOK_ALLOWED_HOSTS to allow it',
  webhook_disabled: 'The webhook is disabled; enable it (PATCH {"enabled": true}) before replaying deliveries.',
  legal_hold_not_found: 'No legal hold has the id 4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b.',
  document_field_not_found: 'The document type has no field amount.',
  document_field_in_use:
    '12 document(s) hold a value of the field amount; delete with ?force=true to remove the values too.',
  member_not_found: 'The user 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed is not a member of this project.',
  route_not_found: 'No such route; see /docs for the operations this service offers.',
  request_timeout: 'The request was not received in time; send it again.',
  conflict: 'A user with this username already exists.',
  idempotency_key_in_flight: 'A request with this Idempotency-Key is still at work; retry after it has been answered.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request in the last 24 hours; use a new key.',
  last_admin: 'This change would leave no active user holding users:manage.',
  role_in_use: 'The role editor is held by 3 user(s); take it from them first.',
  document_type_in_use: 'The document type Contract is used by 12 document(s).',
  invalid_transition: 'A document in published cannot move to in_review; allowed: archived.',
  legal_hold:
    'The document is under the legal hold "Smith v. Acme" (4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b): it cannot be deleted, purged or retained away until the hold is released.',
  document_archived: 'The document is archived; move it back to draft before changing it.',
  version_not_found: 'The document has no version 4; its current version is 3.',
  content_not_available:
    'No text of version 2 of document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is available (processing).',
  preview_not_available:
    'No preview of version 2 of document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is available (pending).',
  range_not_satisfiable: 'The range starts past the end of the file (2048 bytes).',
  last_manager: 'A project keeps at least one manager; make another member manager first.',
  precondition_failed: 'If-Match does not match the document\'s current ETag "v7"; fetch it again and retry.',
  payload_too_large: 'The request body is larger than this service accepts.',
  unsupported_media_type: 'Send the request body as JSON with Content-Type: application/json.',
  too_many_requests: 'Too many login attempts; retry after 42 seconds.',
  headers_too_large: 'The request line or headers are too large.',
  internal_error: 'An unexpected error occurred; it has been logged.',
  service_unavailable: 'The database is temporarily unavailable; retry shortly.',
  file_unavailable: 'The stored file of this version is missing or damaged; an administrator has been alerted.',
  insufficient_storage: 'The file store is full; nothing was kept. Try again later.',
  document_locked:
    'The document is checked out by alice until 2026-11-27T15:30:00.000Z; only alice may change it until then.',
  lock_not_found: 'The document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f is not checked out.',
  review_not_found: 'The document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f has no open review.',
  share_not_found: 'This link does not exist or is no longer available.',
  share_password_required: 'This link needs its password; send it in the X-Share-Password header.',
};
