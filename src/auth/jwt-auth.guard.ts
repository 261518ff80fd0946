import { Injectable, Logger, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Permission } from '../common/authz/permission-catalogue.js';
import { ApiError } from '../common/errors/error-codes.js';
import { ROUTE_ACCESS, ROUTE_MEMBERSHIPS, type RouteAccess } from '../common/http/route-access.js';
import { UsersService } from '../users/users.service.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { sessionUser, type TokenSession, type VerifiedToken } from './token-session.js';

interface AuthRequest {
  user?: AuthenticatedUser;
}

/**
 * The one global guard: reads the route's declared access rule (see route-access.ts), lets public
 * routes through, and for every other request verifies the bearer token, checks the session (the
 * user exists, is active, the token version is current: one primary-key read) and a required
 * catalogue permission. A route that declares no rule is refused: nothing slips past by omission.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  private readonly logger = new Logger('Authorization');
  /** Route metadata is fixed once the app is built: read it once per handler, not on every request. */
  private readonly rules = new WeakMap<object, { access: RouteAccess | null; memberships: boolean }>();

  constructor(
    private readonly reflector: Reflector,
    private readonly users: UsersService,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const { access, memberships } = this.ruleOf(context);
    if (!access) {
      this.logger.error(`${context.getClass().name}.${context.getHandler().name} declares no access rule`);
      throw new ApiError('forbidden', 'This operation is not available.');
    }
    if (access.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();
    const session = await this.verifiedSession(context, request);
    const user = sessionUser(session, await this.users.findAuthContext(session.userId, { memberships }));
    request.user = user;
    if (access.kind === 'permission') {
      if (!holds(user, access.permission)) {
        throw new ApiError('forbidden', `This operation needs the ${access.permission} permission.`);
      }
    }
    return true;
  }

  /** The bearer token's session, verified by passport-jwt (signature, issuer, audience, expiry). */
  private async verifiedSession(context: ExecutionContext, request: AuthRequest): Promise<TokenSession> {
    await super.canActivate(context);
    // Passport put the verified token where the user goes (JwtStrategy.validate).
    const verified = request.user as unknown as VerifiedToken;
    request.user = undefined;
    return verified.session;
  }

  override handleRequest<TUser>(error: unknown, user: TUser, info: unknown): TUser {
    // Auth failures arrive as ApiError; anything else (the database being down) keeps its own meaning.
    if (error) throw error;
    if (!user) throw new ApiError('unauthorized', describeTokenProblem(info));
    return user;
  }

  private ruleOf(context: ExecutionContext): { access: RouteAccess | null; memberships: boolean } {
    const handler = context.getHandler();
    let rule = this.rules.get(handler);
    if (rule === undefined) {
      const targets = [handler, context.getClass()];
      rule = {
        access: this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, targets) ?? null,
        memberships: this.reflector.getAllAndOverride<boolean | undefined>(ROUTE_MEMBERSHIPS, targets) ?? false,
      };
      this.rules.set(handler, rule);
    }
    return rule;
  }
}

function holds(user: AuthenticatedUser, permission: Permission): boolean {
  const [resource, action] = permission.split(':');
  return hasPermission(user, resource, action);
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
