import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrors } from '../errors/api-errors.decorator.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/** Opts a creating POST into Idempotency-Key (IdempotencyInterceptor); its 409 and 422 add to the handler's @ApiErrors. */
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
    ApiErrors('idempotency_key_in_flight', 'idempotency_key_reused'),
  );
}
