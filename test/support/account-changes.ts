// What a holder of users:manage alone tries on accounts, and the status each attempt must get.
export interface AccountChange {
  method: 'POST' | 'PATCH';
  path: (ids: Record<'admin' | 'uma' | 'nora', string>) => string;
  body: (roles: Record<'admin' | 'editor' | 'user' | 'accounts', string>) => object;
  expected: number;
}
export const NEW_USER = { email: 'x@example.org', firstName: 'X', lastName: 'Y', password: 'amber-Lantern-cobalt-44' };
export const ACCOUNT_CHANGES: Record<string, AccountChange> = {
  'create a user holding admin': {
    method: 'POST',
    path: () => '/api/users',
    body: (roles) => ({ ...NEW_USER, username: 'escalated', roleIds: [roles.admin] }),
    expected: 403,
  },
  'create a user holding user': {
    method: 'POST',
    path: () => '/api/users',
    body: (roles) => ({ ...NEW_USER, username: 'plain', email: 'plain@example.org', roleIds: [roles.user] }),
    expected: 201,
  },
  'give themselves admin': {
    method: 'PATCH',
    path: (ids) => `/api/users/${ids.uma}`,
    body: (roles) => ({ roleIds: [roles.accounts, roles.admin] }),
    expected: 403,
  },
  'give nora editor': {
    method: 'PATCH',
    path: (ids) => `/api/users/${ids.nora}`,
    body: (roles) => ({ roleIds: [roles.user, roles.editor] }),
    expected: 403,
  },
  'edit admin': {
    method: 'PATCH',
    path: (ids) => `/api/users/${ids.admin}`,
    body: () => ({ firstName: 'X' }),
    expected: 403,
  },
  'deactivate admin': {
    method: 'PATCH',
    path: (ids) => `/api/users/${ids.admin}`,
    body: () => ({ isActive: false }),
    expected: 403,
  },
  "set admin's password": {
    method: 'POST',
    path: (ids) => `/api/users/${ids.admin}/password`,
    body: () => ({ newPassword: 'amber-Lantern-cobalt-44' }),
    expected: 403,
  },
  'edit nora': {
    method: 'PATCH',
    path: (ids) => `/api/users/${ids.nora}`,
    body: () => ({ firstName: 'Nora' }),
    expected: 200,
  },
};
