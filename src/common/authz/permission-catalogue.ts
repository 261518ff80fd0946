/**
 * The fixed catalogue of global permissions a role may hold: resource -> actions. A role's
 * `permissions` object uses only these; a global permission applies to every object of its kind
 * (e.g. documents:update on every document of every project). Project roles (viewer, contributor,
 * manager) grant rights inside one project on top of these.
 */
export const PERMISSION_CATALOGUE = {
  documents: ['read', 'create', 'update', 'delete', 'publish', 'purge'],
  projects: ['manage'],
  documentTypes: ['manage'],
  users: ['manage'],
  roles: ['manage'],
  audit: ['read'],
  legalHolds: ['manage'],
} as const;

export type PermissionResource = keyof typeof PERMISSION_CATALOGUE;
export type PermissionAction<R extends PermissionResource = PermissionResource> =
  (typeof PERMISSION_CATALOGUE)[R][number];

/** "resource:action", e.g. "users:manage". */
export type Permission = {
  [R in PermissionResource]: `${R}:${PermissionAction<R>}`;
}[PermissionResource];

/** A role's permissions as stored: `{ "documents": ["read", "update"] }`. */
export type RolePermissions = Partial<Record<PermissionResource, string[]>>;

/**
 * What is wrong with a permissions object, one sentence per bad entry (empty when it is valid):
 * an object of catalogue resources, each an array of that resource's actions without repeats.
 */
export function permissionProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return ['permissions must be an object mapping a resource to an array of actions'];
  }
  const problems: string[] = [];
  for (const [resource, actions] of Object.entries(value)) {
    if (!Object.hasOwn(PERMISSION_CATALOGUE, resource)) {
      problems.push(
        `permissions.${resource} is not a resource of the catalogue (${Object.keys(PERMISSION_CATALOGUE).join(', ')})`,
      );
      continue;
    }
    const allowed: readonly string[] = PERMISSION_CATALOGUE[resource as PermissionResource];
    if (!Array.isArray(actions)) {
      problems.push(`permissions.${resource} must be an array of actions (${allowed.join(', ')})`);
      continue;
    }
    const seen = new Set<unknown>();
    for (const action of actions as unknown[]) {
      if (typeof action !== 'string' || !allowed.includes(action)) {
        problems.push(`permissions.${resource} contains "${String(action)}", not one of ${allowed.join(', ')}`);
      } else if (seen.has(action)) {
        problems.push(`permissions.${resource} lists "${action}" twice`);
      }
      seen.add(action);
    }
  }
  return problems;
}

/** Every permission of the catalogue, e.g. for the seeded admin role. */
export function allPermissions(): RolePermissions {
  return Object.fromEntries(
    Object.entries(PERMISSION_CATALOGUE).map(([resource, actions]) => [resource, [...actions]]),
  ) as RolePermissions;
}
