import {
  createParamDecorator,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { ApiError } from '../common/errors/error-codes.js';

const PREFIX = 'field.';

type WithFieldParameters = { query?: Record<string, unknown>; fieldParameters?: Record<string, string> };

/**
 * The list's `field.<key>` and `field.<key>[gte|lte]` parameters are named by the data, so its query
 * DTO cannot declare them: this takes them out of the query before the pipe validates the rest.
 */
@Injectable()
export class FieldParametersInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<WithFieldParameters>();
    const parameters: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (!name.startsWith(PREFIX)) continue;
      if (typeof value !== 'string') throw new ApiError('validation_failed', `${name} must be given once.`);
      parameters[name.slice(PREFIX.length)] = value;
      delete request.query![name];
    }
    request.fieldParameters = parameters;
    return next.handle();
  }
}

/** The `field.` parameters FieldParametersInterceptor took out, by the rest of their name (`amount[gte]`). */
export const FieldParameters = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Record<string, string> =>
    context.switchToHttp().getRequest<WithFieldParameters>().fieldParameters ?? {},
);
