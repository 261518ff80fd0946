import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedUser } from './authenticated-user.js';
import type { TokenSession } from './token-session.js';

/** The user the global guard resolved for this request. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser =>
    context.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user,
);

/** The verified token of a `@SessionCheckedByQuery()` route (its session is not checked yet). */
export const CurrentSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TokenSession =>
    context.switchToHttp().getRequest<{ tokenSession: TokenSession }>().tokenSession,
);
