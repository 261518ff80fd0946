import { HttpException } from '@nestjs/common';
import { ApiError, type ErrorCode } from './error-codes.js';
import { errorAnswer, internalError, routeNotFound, unsupportedMediaType, type ErrorAnswer } from './error-answer.js';

export interface MappedError extends ErrorAnswer {
  /** True when the failure is ours (5xx) and deserves a server-side log line. */
  unexpected: boolean;
}

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'route_not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  431: 'headers_too_large',
  503: 'service_unavailable',
};

// Driver error codes that mean "the database is not reachable right now", not "the query is wrong".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  // Galera: "WSREP has not yet prepared node for application use" (a node joining or leaving).
  'ER_UNKNOWN_COM_ERROR',
  'ER_LOCK_DEADLOCK',
  'ER_QUERY_TIMEOUT',
  'ER_CONNECTION_KILLED',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
]);

function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { code?: unknown; driverError?: { code?: unknown }; cause?: unknown };
  if (typeof candidate.driverError?.code === 'string') return candidate.driverError.code;
  if (typeof candidate.code === 'string') return candidate.code;
  return candidate.cause ? errorCodeOf(candidate.cause) : undefined;
}

const CONFLICT_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_LOCKED']);

/** Says what happened: a conflict that retries did not resolve, a cluster node in transition, or no database. */
function unavailableDetails(error: unknown): string {
  const code = errorCodeOf(error) ?? '';
  if (CONFLICT_CODES.has(code) || code.startsWith('SQLITE_BUSY')) {
    return 'Concurrent changes to the same data kept conflicting; retry shortly.';
  }
  if (code === 'ER_UNKNOWN_COM_ERROR') return 'A database node is joining or leaving its cluster; retry shortly.';
  return 'The database is temporarily unavailable; retry shortly.';
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = errorCodeOf(error);
  if (code && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY'))) {
    return true;
  }
  const name = (error as { name?: string } | null)?.name;
  const message = (error as { message?: string } | null)?.message ?? '';
  // Pool or driver gave up before a connection existed.
  return (
    (name === 'TypeORMError' || name === 'Error') &&
    /Pool is closed|Connection lost|Can't add new command when connection is in closed state|connect ETIMEDOUT|Queue limit reached|The database connection is not open/.test(
      message,
    )
  );
}

function fastifyError(error: unknown): MappedError | undefined {
  const candidate = error as { code?: unknown; statusCode?: unknown; message?: unknown } | null;
  if (!candidate || typeof candidate.code !== 'string' || !candidate.code.startsWith('FST_')) {
    // Fastify's JSON parser raises a SyntaxError with statusCode 400 for malformed bodies.
    if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
      return result('invalid_json', 'The request body is not valid JSON.');
    }
    return undefined;
  }
  switch (candidate.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return result('payload_too_large', 'The request body is larger than this service accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return answer(unsupportedMediaType());
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return result('invalid_json', 'The request declares a JSON body but it is empty; send {} for no changes.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return result(
        'invalid_json',
        'The request body is not valid JSON, or it contains a forbidden "__proto__" or "constructor" key.',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return result('invalid_json', 'The Content-Length header does not match the body.');
    default: {
      const status = typeof candidate.statusCode === 'number' ? candidate.statusCode : 500;
      if (status >= 500) return undefined;
      return result(STATUS_TO_CODE[status] ?? 'validation_failed', 'The request could not be processed.');
    }
  }
}

function answer(error: ApiError): MappedError {
  return { ...errorAnswer(error), unexpected: error.status >= 500 };
}

function result(code: ErrorCode, details: string): MappedError {
  return answer(new ApiError(code, details));
}

function detailsOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

/** Turns anything thrown anywhere into the one {error, details} answer. Pure, so it is unit-tested. */
export function mapError(exception: unknown): MappedError {
  if (exception instanceof ApiError) return answer(exception);
  if (exception instanceof HttpException) {
    // Nest wraps Fastify's own 4xx errors (body parsing) in an HttpException with the original as cause.
    const fromFastify = fastifyError((exception as { cause?: unknown }).cause);
    if (fromFastify) return fromFastify;
    const status = exception.getStatus();
    if (status === 404) return answer(routeNotFound());
    if (status === 503) {
      return result('service_unavailable', 'A dependency of the service is unavailable; retry shortly.');
    }
    if (status >= 500) return answer(internalError());
    return result(STATUS_TO_CODE[status] ?? 'validation_failed', detailsOf(exception));
  }
  const fromFastify = fastifyError(exception);
  if (fromFastify) return fromFastify;
  if (isDatabaseUnavailable(exception)) return result('service_unavailable', unavailableDetails(exception));
  return answer(internalError());
}

/**
 * What a log line may say about an error: its class and driver code, never its message
 * (driver messages can quote SQL and data) and never its stack.
 */
export function describeForLog(exception: unknown): { type: string; code?: string } {
  const type = (exception as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof exception;
  const code = errorCodeOf(exception);
  return code ? { type, code } : { type };
}
