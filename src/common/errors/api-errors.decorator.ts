import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiInternalServerErrorResponse,
  ApiPayloadTooLargeResponse,
  ApiRequestTimeoutResponse,
  ApiServiceUnavailableResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

/**
 * The error answers every operation can give (a malformed URL or query is a 400 anywhere, a
 * failure a 500, an unreachable database or a missed deadline a 503), plus the body-parsing ones
 * for operations that take a body. Put it last (lowest) on the handler: an operation's own
 * @Api...Response for the same status, written above it, replaces the default here.
 * Each error response lists, as examples, the codes its description names (see openapi.ts).
 */
export function ApiCommonErrors(options: { body?: boolean } = {}) {
  const decorators = [
    ApiBadRequestResponse({
      type: ErrorResponseDto,
      description: options.body
        ? 'validation_failed, invalid_json or bad_request: the body, a parameter or the request line is invalid'
        : 'validation_failed or bad_request: a parameter or the request line is invalid',
    }),
    ApiInternalServerErrorResponse({
      type: ErrorResponseDto,
      description: 'internal_error (details never include internals)',
    }),
    ApiServiceUnavailableResponse({
      type: ErrorResponseDto,
      description:
        'service_unavailable: the database is unreachable or the answer missed the request deadline; ' +
        'retry after the Retry-After seconds',
    }),
  ];
  if (options.body) {
    decorators.push(
      ApiPayloadTooLargeResponse({
        type: ErrorResponseDto,
        description: 'payload_too_large: body over the configured limit (1 MiB by default)',
      }),
      ApiRequestTimeoutResponse({
        type: ErrorResponseDto,
        description: 'request_timeout: the body announced did not arrive within the request timeout',
      }),
      ApiUnsupportedMediaTypeResponse({
        type: ErrorResponseDto,
        description: 'unsupported_media_type: the body is not Content-Type: application/json',
      }),
    );
  }
  return applyDecorators(...decorators);
}
