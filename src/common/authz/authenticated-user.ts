/** A role's permissions as stored: resource -> actions. */
type RolePermissions = Record<string, string[]>;

/** What the guard attaches to a request: enough to authorize, nothing secret. */
export interface AuthenticatedUser {
  id: string;
  username: string;
  roles: { name: string; permissions: RolePermissions }[];
  /** The caller's project ids, read with the session on routes that declare @WithMemberships() (else undefined). */
  projectIds?: readonly string[];
}

export function hasPermission(user: AuthenticatedUser, resource: string, action: string): boolean {
  return user.roles.some((role) => role.permissions[resource]?.includes(action) ?? false);
}
