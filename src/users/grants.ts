import { ApiError } from '../common/errors/error-codes.js';
import type { RolePermissions } from './entities/role.entity.js';

/** Anything holding roles: the caller of an API route, a user read with roles, a role list. */
export interface HoldsRoles {
  roles: readonly { name: string; permissions: RolePermissions }[];
}

/**
 * Who asks for a change to accounts: a user of the API, whose own permissions bound what they may
 * grant or touch, or the operator at the command line, who is bound by nothing (they own the server).
 */
export type Actor = HoldsRoles | typeof OPERATOR;
export const OPERATOR = 'operator' as const;

/** Every "resource:action" these roles grant, sorted. */
export function permissionsOf(roles: HoldsRoles['roles']): string[] {
  const granted = new Set<string>();
  for (const role of roles) {
    for (const [resource, actions] of Object.entries(role.permissions)) {
      for (const action of actions ?? []) granted.add(`${resource}:${action}`);
    }
  }
  return [...granted].sort();
}

/** The permissions of `roles` that the actor does not hold (none for the operator). */
function beyondActor(actor: Actor, roles: HoldsRoles['roles']): string[] {
  if (actor === OPERATOR) return [];
  const held = new Set(permissionsOf(actor.roles));
  return permissionsOf(roles).filter((permission) => !held.has(permission));
}

/** 403 forbidden unless the actor holds every permission of the roles they would grant. */
export function assertMayGrant(actor: Actor, roles: HoldsRoles['roles']): void {
  const missing = beyondActor(actor, roles);
  if (missing.length === 0) return;
  const names = roles.filter((role) => beyondActor(actor, [role]).length > 0).map((role) => role.name);
  throw new ApiError(
    'forbidden',
    `You cannot grant the role(s) ${names.join(', ')}: they hold ${missing.join(', ')}, which you do not hold.`,
  );
}

/** 403 forbidden unless the actor holds every permission the target user holds. */
export function assertMayManage(actor: Actor, target: HoldsRoles & { username: string }): void {
  const missing = beyondActor(actor, target.roles);
  if (missing.length === 0) return;
  throw new ApiError(
    'forbidden',
    `You cannot change the account ${target.username}: it holds ${missing.join(', ')}, which you do not hold.`,
  );
}
