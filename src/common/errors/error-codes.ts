/**
 * The stable error identifiers this API answers with, and the HTTP status of each.
 * Clients branch on `error`; `details` is for people. Documented in Swagger as ErrorResponse.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  bad_request: 400,
  webhook_url_refused: 400,
  weak_password: 400,
  invalid_credentials: 401,
  unauthorized: 401,
  forbidden: 403,
  document_not_found: 404,
  user_not_found: 404,
  role_not_found: 404,
  document_type_not_found: 404,
  project_not_found: 404,
  member_not_found: 404,
  notification_not_found: 404,
  comment_not_found: 404,
  webhook_not_found: 404,
  webhook_delivery_not_found: 404,
  saved_search_not_found: 404,
  legal_hold_not_found: 404,
  document_field_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_key_in_flight: 409,
  idempotency_key_reused: 422,
  last_admin: 409,
  role_in_use: 409,
  document_type_in_use: 409,
  last_manager: 409,
  invalid_transition: 409,
  document_archived: 409,
  webhook_disabled: 409,
  legal_hold: 409,
  document_field_in_use: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  headers_too_large: 431,
  internal_error: 500,
  file_unavailable: 500,
  service_unavailable: 503,
  version_not_found: 404,
  content_not_available: 404,
  preview_not_available: 404,
  range_not_satisfiable: 416,
  insufficient_storage: 507,
  document_locked: 423,
  lock_not_found: 404,
  review_not_found: 404,
  share_not_found: 404,
  share_password_required: 401,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

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
