// The users' hot-path statements (login and the per-request token check), owned by UsersRepository
// (the only caller in src/). Pure text with no runtime imports, so the bench's baseline server and
// its EXPLAIN check run this one copy without loading Nest or TypeORM.

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

/** A user's rows with each of their roles (one row with NULL role columns when they hold none). */
const WITH_ROLES =
  'r.id AS roleId, r.name AS roleName, r.permissions AS rolePermissions ' +
  'FROM users u LEFT JOIN user_roles ur ON ur.userId = u.id LEFT JOIN roles r ON r.id = ur.roleId';

/**
 * For login, by username: the user (password hash included) with roles. The comparison follows
 * the column's collation (on MariaDB it ignores trailing spaces), so the repository keeps only
 * the rows whose username is exactly the one given.
 */
export const USER_FOR_LOGIN_SQL = `SELECT ${USER_LOGIN_COLUMNS.map((column) => `u.${column}`).join(', ')}, ${WITH_ROLES} WHERE u.username = ?`;

/** For every authenticated request, by id: what authorization needs (active flag, token version, role permissions). */
export const AUTH_CONTEXT_SQL = `SELECT u.id, u.username, u.isActive, u.tokenVersion, ${WITH_ROLES} WHERE u.id = ?`;
