import { SetMetadata } from '@nestjs/common';
import type { Permission } from '../authz/permission-catalogue.js';

/**
 * Every route declares who may call it, in one visible place on the handler (or its controller):
 * - `@Public()`: anyone, no token (login, health);
 * - `@Authenticated()`: any user with a valid token; the route only touches the caller's own data;
 * - `@SessionCheckedByQuery()`: as `@Authenticated()`, but the guard only verifies the token and
 *   hands the handler a `TokenSession`; the route's first statement checks the session itself (the
 *   user exists, is active and has the token's version: no row is 401), so a hot route spends no
 *   round trip on it. Only for routes that need neither roles nor the username;
 * - `@RequirePermission('users:manage')`: a role of the caller grants that catalogue permission;
 * - `@UsesPolicy('document')`: any user with a valid token reaches the handler, and the named
 *   policy decides per object in the service (e.g. project membership), answering 404/403.
 *   `@UsesPolicy('document', { sessionCheckedByQuery: true })`: the same, but as with
 *   `@SessionCheckedByQuery()` the handler gets a `TokenSession`, and the statement that reads the
 *   object also reads the caller (CALLER_COLUMNS: session and roles) and checks the session.
 * The global guard refuses a route that declares none (fail closed), and a test enumerates every
 * registered route to keep it that way.
 */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'authenticated' }
  | { kind: 'session-in-query' }
  | { kind: 'permission'; permission: Permission }
  | { kind: 'policy'; policy: string; sessionCheckedByQuery?: true };

export const ROUTE_ACCESS = 'routeAccess';

export const Public = () => SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
export const Authenticated = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated' } satisfies RouteAccess);
export const SessionCheckedByQuery = () =>
  SetMetadata(ROUTE_ACCESS, { kind: 'session-in-query' } satisfies RouteAccess);
export const RequirePermission = (permission: Permission) =>
  SetMetadata(ROUTE_ACCESS, { kind: 'permission', permission } satisfies RouteAccess);
export const UsesPolicy = (policy: string, options: { sessionCheckedByQuery?: true } = {}) =>
  SetMetadata(ROUTE_ACCESS, { kind: 'policy', policy, ...options } satisfies RouteAccess);
