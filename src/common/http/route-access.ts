import { SetMetadata } from '@nestjs/common';
import type { Permission } from '../authz/permission-catalogue.js';

/**
 * Every route declares who may call it, in one visible place on the handler (or its controller):
 * - `@Public()`: anyone, no token (login, health);
 * - `@Authenticated()`: any user with a valid token; the route only touches the caller's own data;
 * - `@RequirePermission('users:manage')`: a role of the caller grants that catalogue permission;
 * - `@UsesPolicy('document')`: any user with a valid token reaches the handler, and the named
 *   policy decides per object in the service (e.g. project membership), answering 404/403.
 * The global guard refuses a route that declares none (fail closed), and a test enumerates every
 * registered route to keep it that way.
 */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'authenticated' }
  | { kind: 'permission'; permission: Permission }
  | { kind: 'policy'; policy: string };

export const ROUTE_ACCESS = 'routeAccess';

export const Public = () => SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
export const Authenticated = () => SetMetadata(ROUTE_ACCESS, { kind: 'authenticated' } satisfies RouteAccess);
export const RequirePermission = (permission: Permission) =>
  SetMetadata(ROUTE_ACCESS, { kind: 'permission', permission } satisfies RouteAccess);
export const UsesPolicy = (policy: string) =>
  SetMetadata(ROUTE_ACCESS, { kind: 'policy', policy } satisfies RouteAccess);

export const ROUTE_MEMBERSHIPS = 'routeMemberships';

/** The guard reads the caller's project ids with the session (AuthenticatedUser.projectIds): no second round trip. */
export const WithMemberships = () => SetMetadata(ROUTE_MEMBERSHIPS, true);
