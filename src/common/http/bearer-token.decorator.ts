import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The request's `Authorization` header, for a handler that needs the token itself. Unlike
 * `@Headers('authorization')` it adds no (required) header parameter to the OpenAPI document:
 * the bearer security scheme already says how the token is sent.
 */
export const BearerToken = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers.authorization,
);
