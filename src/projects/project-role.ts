/**
 * A member's role inside one project: viewer reads the project's documents; contributor also
 * creates documents and changes, versions, submits and deletes its own; manager may do everything
 * to every document of the project and manages its members.
 */
export const PROJECT_ROLES = ['viewer', 'contributor', 'manager'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export function isProjectRole(value: unknown): value is ProjectRole {
  return typeof value === 'string' && (PROJECT_ROLES as readonly string[]).includes(value);
}
