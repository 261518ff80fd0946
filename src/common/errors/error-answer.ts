import { ApiError, type ErrorCode } from './error-codes.js';

/** The error wire format: the only body this service sends with a 4xx or 5xx. */
export interface ErrorBody {
  error: ErrorCode;
  details: string;
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/** What a 429 or 503 tells the client to wait when the thrower did not say. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * The one place an error becomes what is sent: status, headers and the {error, details} body.
 * The exception filter, the framework error handlers and the raw-socket answers all go through it.
 */
export function errorAnswer(error: ApiError): ErrorAnswer {
  const headers = { ...error.headers };
  // Every 429 and 503 says when to come back.
  if ((error.status === 429 || error.status === 503) && headers['retry-after'] === undefined) {
    headers['retry-after'] = String(DEFAULT_RETRY_AFTER_SECONDS);
  }
  return { status: error.status, headers, body: { error: error.code, details: boundedDetails(error.details) } };
}

/** The longest details sentence sent (UTF-16 units, so also at most that many code points); documented. */
export const MAX_DETAILS_LENGTH = 2000;

/** Details can echo client input (e.g. every unknown key of a 1 MiB body): cut them, never mid-character. */
function boundedDetails(details: string): string {
  if (details.length <= MAX_DETAILS_LENGTH) return details;
  let cut = MAX_DETAILS_LENGTH - 1;
  const last = details.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${details.slice(0, cut)}…`;
}

/*
 * The errors raised in more than one place, each sentence written once. Functions, not shared
 * instances, because an Error carries the stack of where it was made.
 */
export const internalError = () => new ApiError('internal_error', 'An unexpected error occurred; it has been logged.');

export const routeNotFound = () =>
  new ApiError('route_not_found', 'No such route; see /docs for the operations this service offers.');

export const unsupportedMediaType = () =>
  new ApiError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');

export const requestTimeout = () =>
  new ApiError('request_timeout', 'The request was not received in time; send it again.', { connection: 'close' });

export const handlerTimeout = () =>
  new ApiError('service_unavailable', 'The service could not answer in time; retry shortly.');

export const headersTooLarge = () => new ApiError('headers_too_large', 'The request line or headers are too large.');

export const notHttp = () => new ApiError('bad_request', 'The request is not valid HTTP.');

export const missingHost = () => new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.');
