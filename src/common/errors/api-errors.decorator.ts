import { applyDecorators } from '@nestjs/common';
import {
  ApiInternalServerErrorResponse,
  ApiPayloadTooLargeResponse,
  ApiRequestTimeoutResponse,
  ApiServiceUnavailableResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

/** The error answers every operation can give, plus the body-parsing ones for operations with a body. */
export function ApiCommonErrors(options: { body?: boolean } = {}) {
  const decorators = [
    ApiInternalServerErrorResponse({
      type: ErrorResponseDto,
      description: 'internal_error (details never include internals)',
    }),
    ApiServiceUnavailableResponse({
      type: ErrorResponseDto,
      description: 'service_unavailable: the database is unreachable; retry after the Retry-After seconds',
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
