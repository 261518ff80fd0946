import { describe, expect, it } from 'vitest';
import { allPermissions, permissionProblems } from './permission-catalogue.js';

describe('permissionProblems', () => {
  it('accepts catalogue entries, empty objects and empty action lists', () => {
    expect(permissionProblems({})).toEqual([]);
    expect(permissionProblems({ documents: ['read', 'update'], users: [] })).toEqual([]);
    expect(permissionProblems(allPermissions())).toEqual([]);
  });

  it('names each bad entry', () => {
    expect(permissionProblems({ notifications: ['read'] })).toEqual([
      expect.stringContaining('permissions.notifications is not a resource'),
    ]);
    expect(permissionProblems({ documents: ['read', 'fly'] })).toEqual([
      expect.stringContaining('permissions.documents contains "fly"'),
    ]);
    expect(permissionProblems({ documents: 'read' })).toEqual([
      expect.stringContaining('permissions.documents must be an array'),
    ]);
    expect(permissionProblems({ users: ['manage', 'manage'] })).toEqual([expect.stringContaining('twice')]);
    expect(permissionProblems([])).toHaveLength(1);
    expect(permissionProblems({ toString: ['x'] })).toEqual([expect.stringContaining('permissions.toString')]);
  });
});
