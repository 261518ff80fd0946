import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiHeader, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { errorExamples } from '../errors/error-examples.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * Opts a creating POST into Idempotency-Key (IdempotencyInterceptor). Put it lowest on the handler:
 * an operation's own 409 response, written above, replaces the one documented here.
 */
export function Idempotent() {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Any unique string (a UUID, say) chosen by the client. Sent again with the same body within 24 hours by ' +
        'the same user, it answers the first answer again (with `Idempotent-Replayed: true`) instead of ' +
        'creating twice; with another body 422 idempotency_key_reused; while the first is at work 409 ' +
        'idempotency_key_in_flight. A multipart upload is not compared (the handler reads it as a stream): ' +
        'the same key with another upload answers the first answer.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' },
    }),
    ApiConflictResponse(
      errorExamples('idempotency_key_in_flight: a request with this key is still at work', [
        'idempotency_key_in_flight',
      ]),
    ),
    ApiUnprocessableEntityResponse(
      errorExamples('idempotency_key_reused: the key was used with another request', ['idempotency_key_reused']),
    ),
  );
}
