import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ApiError } from '../common/errors/error-codes.js';
import { IS_PUBLIC } from '../common/http/public.decorator.js';

/** Global guard: every route needs a valid bearer token unless marked @Public(). */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  /** Route metadata is fixed once the app is built: read it once per handler, not on every request. */
  private readonly publicHandlers = new WeakMap<object, boolean>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const handler = context.getHandler();
    let isPublic = this.publicHandlers.get(handler);
    if (isPublic === undefined) {
      isPublic = Boolean(
        this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [handler, context.getClass()]),
      );
      this.publicHandlers.set(handler, isPublic);
    }
    if (isPublic) return true;
    return super.canActivate(context);
  }

  override handleRequest<TUser>(error: unknown, user: TUser, info: unknown): TUser {
    // Auth failures arrive as ApiError; anything else (the database being down) keeps its own meaning.
    if (error) throw error;
    if (!user) throw new ApiError('unauthorized', describeTokenProblem(info));
    return user;
  }
}

function describeTokenProblem(info: unknown): string {
  const name = (info as { name?: string } | undefined)?.name;
  const message = (info as { message?: string } | undefined)?.message ?? '';
  if (name === 'TokenExpiredError') return 'The token has expired; log in again.';
  if (name === 'NotBeforeError') return 'The token is not valid yet.';
  if (message === 'No auth token')
    return 'Send a bearer token: Authorization: Bearer <token> (from POST /api/auth/login).';
  return 'The token is malformed, wrongly signed or not issued by this service.';
}
