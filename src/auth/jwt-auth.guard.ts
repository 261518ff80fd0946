import { Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Permission } from '../common/authz/permission-catalogue.js';
import { ApiError } from '../common/errors/error-codes.js';
import { ROUTE_ACCESS, type RouteAccess } from '../common/http/route-access.js';
import { UsersService } from '../users/users.service.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { AccessTokens } from './access-tokens.js';
import { sessionUser } from './token-session.js';

interface AuthRequest {
  headers: { authorization?: string };
  user?: AuthenticatedUser;
}

/**
 * The one global guard: reads the route's declared access rule (see route-access.ts), lets public
 * routes through, and for every other request verifies the bearer token, checks the session (the
 * user exists, is active, the token version is current: one primary-key read) and a required
 * catalogue permission. A route that declares no rule is refused: nothing slips past by omission.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly logger = new Logger('Authorization');
  /** Route metadata is fixed once the app is built: read it once per handler, not on every request. */
  private readonly rules = new WeakMap<object, RouteAccess | null>();

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokens,
    private readonly users: UsersService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context);
    if (!access) {
      this.logger.error(`${context.getClass().name}.${context.getHandler().name} declares no access rule`);
      throw new ApiError('forbidden', 'This operation is not available.');
    }
    if (access.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();
    const session = this.tokens.sessionOf(request.headers.authorization);
    const user = sessionUser(session, await this.users.findAuthContext(session.userId));
    request.user = user;
    if (access.kind === 'permission' && !holds(user, access.permission)) {
      throw new ApiError('forbidden', `This operation needs the ${access.permission} permission.`);
    }
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess | null {
    const handler = context.getHandler();
    let access = this.rules.get(handler);
    if (access === undefined) {
      access =
        this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [handler, context.getClass()]) ?? null;
      this.rules.set(handler, access);
    }
    return access;
  }
}

function holds(user: AuthenticatedUser, permission: Permission): boolean {
  const [resource, action] = permission.split(':');
  return hasPermission(user, resource, action);
}
