// Legacy hand-written caller SQL, kept only while documents, notifications and the bench still
// import it; UsersRepository no longer uses it. The lead removes it once those are rewritten.

import type { RolePermissions } from './entities/role.entity.js';
import type { AuthContext } from './users.repository.js';

export type { AuthContext } from './users.repository.js';

/** A user's rows with each of their roles (one row with NULL role columns when they hold none). */
export const CALLER_FROM = 'users u LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId';
const ROLE_COLUMNS = 'r.id AS roleId, r.name AS roleName, r.permissions AS rolePermissions';

/** The users columns login reads: all but the identity keys, which only account creation needs. */
export const USER_LOGIN_COLUMNS = [
  'id',
  'username',
  'email',
  'firstName',
  'lastName',
  'passwordHash',
  'isActive',
  'tokenVersion',
  'createdAt',
] as const;

/**
 * For login, by username: the user (password hash included) with roles. The comparison follows
 * the column's collation (on MariaDB it ignores trailing spaces), so the repository keeps only
 * the rows whose username is exactly the one given.
 */
export const USER_FOR_LOGIN_SQL = `SELECT ${USER_LOGIN_COLUMNS.map((column) => `u.${column}`).join(', ')}, ${ROLE_COLUMNS} FROM ${CALLER_FROM} WHERE u.username = ?`;

/**
 * The caller's authorization columns and role rows, for a route that reads them in the same
 * statement as its object instead of a separate lookup: select CALLER_COLUMNS, join the route's
 * tables onto CALLER_FROM (LEFT JOIN, so the caller's row comes back whether or not the object
 * exists) and end with `WHERE u.id = ?`. One row per role; callerFromRows() reads them.
 */
export const CALLER_COLUMNS =
  'u.id AS callerId, u.username AS callerUsername, u.isActive AS callerIsActive, ' +
  `u.tokenVersion AS callerTokenVersion, ${ROLE_COLUMNS}`;

/** The caller read by CALLER_COLUMNS (no rows: the user does not exist). */
export function callerFromRows(rows: Record<string, unknown>[]): AuthContext | null {
  const [first] = rows;
  if (!first) return null;
  return {
    id: String(first.callerId),
    username: String(first.callerUsername),
    // BOOLEAN is TINYINT(1) on MariaDB and INTEGER on SQLite: 1 or 0 either way.
    isActive: Number(first.callerIsActive) === 1,
    tokenVersion: Number(first.callerTokenVersion),
    roles: rows
      .filter((row) => row.roleId !== null)
      .map((row) => ({
        name: String(row.roleName),
        // simple-json: the permissions' JSON text on both databases.
        permissions: JSON.parse(String(row.rolePermissions)) as RolePermissions,
      })),
  };
}

/** For every authenticated request, by id: what authorization needs (active flag, token version, role permissions). */
export const AUTH_CONTEXT_SQL = `SELECT ${CALLER_COLUMNS} FROM ${CALLER_FROM} WHERE u.id = ?`;

/**
 * A scalar subquery's value, read only while the session is live: one row when the user exists, is
 * active and still has the token's version, none otherwise (the caller answers 401). Folds the
 * per-request session check into a statement the route runs anyway. Parameters: the subquery's,
 * then user id and token version.
 */
export function withLiveSession(
  [scalar, parameters]: [string, unknown[]],
  session: { userId: string; tokenVersion: number },
): [string, unknown[]] {
  return [
    `SELECT (${scalar}) AS value FROM users WHERE id = ? AND isActive = 1 AND tokenVersion = ?`,
    [...parameters, session.userId, session.tokenVersion],
  ];
}
