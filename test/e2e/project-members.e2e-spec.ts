import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { projectsApp, expectError } from '../support/projects-app.js';

describe.each(databasesUnderTest())('project membership: add, change and remove on %s', (kind) => {
  const f = projectsApp(kind);
  const { api, auth, idOf, putMember, removeMember, membersOf, memberAddedEvents, countRows, projectWith } = f;

  describe('PUT /api/projects/{id}/members/{userId}', () => {
    it('adds a member and records project.member_added in the outbox; changing a role records nothing', async () => {
      const id = await projectWith({ alice: 'manager' });
      const added = await putMember('alice', id, idOf('nora'), { role: 'viewer' });
      expect(added.status).toBe(200);
      expect(added.body).toEqual({ member: { userId: idOf('nora'), username: 'nora', role: 'viewer' } });
      const events = await memberAddedEvents(id, idOf('nora'));
      expect(events).toHaveLength(1);
      const payload = typeof events[0].payload === 'string' ? JSON.parse(events[0].payload) : events[0].payload;
      expect({ ...events[0], payload }).toEqual({
        actorId: idOf('alice'),
        projectId: id,
        documentId: null,
        subjectUserId: idOf('nora'),
        payload: { projectName: expect.any(String), role: 'viewer', actorName: 'alice' },
      });
      // The new member sees the project now.
      expect((await api().get(`/api/projects/${id}`).set(auth('nora'))).body.project.role).toBe('viewer');

      const promoted = await putMember('alice', id, idOf('nora'), { role: 'contributor' });
      expect(promoted.body.member.role).toBe('contributor');
      const same = await putMember('alice', id, idOf('nora'), { role: 'contributor' });
      expect(same.status).toBe(200);
      expect(await memberAddedEvents(id, idOf('nora'))).toHaveLength(1);
      expect(await membersOf(id)).toContainEqual({ userId: idOf('nora'), username: 'nora', role: 'contributor' });
    });

    it('answers 404 user_not_found for an unknown user and adds nothing', async () => {
      const before = await countRows('project_members');
      expectError(await putMember('alice', f.projectId, randomUUID(), { role: 'viewer' }), 404, 'user_not_found');
      expect(await countRows('project_members')).toBe(before);
    });

    it.each([
      [{}, 'role must be one of: viewer, contributor, manager'],
      [{ role: 'owner' }, 'role must be one of: viewer, contributor, manager'],
      [{ role: 'Manager' }, 'role must be one of'],
      [{ role: ['viewer'] }, 'role must be one of'],
      [{ role: 'viewer', since: 'now' }, 'property since should not exist'],
    ])('rejects %j with 400 and changes nothing', async (body, message) => {
      const response = await putMember('alice', f.projectId, idOf('bob'), body);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(message);
      expect((await membersOf(f.projectId)).find((m) => m.username === 'bob')?.role).toBe('contributor');
    });

    it('rejects a non-UUID user id with 400 naming it', async () => {
      const response = await putMember('alice', f.projectId, 'bob', { role: 'viewer' });
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain('userId');
    });

    it('refuses to demote the last manager (409 last_manager) and allows it once another manager exists', async () => {
      const id = await projectWith({ alice: 'manager', bob: 'contributor' });
      expectError(await putMember('alice', id, idOf('alice'), { role: 'contributor' }), 409, 'last_manager');
      expectError(await putMember('admin', id, idOf('alice'), { role: 'viewer' }), 409, 'last_manager');
      expect((await membersOf(id)).find((m) => m.username === 'alice')?.role).toBe('manager');
      expect((await putMember('alice', id, idOf('bob'), { role: 'manager' })).status).toBe(200);
      expect((await putMember('alice', id, idOf('alice'), { role: 'viewer' })).status).toBe(200);
      expect((await membersOf(id)).map((m) => [m.username, m.role])).toEqual([
        ['alice', 'viewer'],
        ['bob', 'manager'],
      ]);
    });
  });

  describe('DELETE /api/projects/{id}/members/{userId}', () => {
    it('removes a member (204); the removed user no longer sees the project', async () => {
      const id = await projectWith({ alice: 'manager', bob: 'contributor' });
      const response = await removeMember('alice', id, idOf('bob'));
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect((await membersOf(id)).map((m) => m.username)).toEqual(['alice']);
      expectError(await api().get(`/api/projects/${id}`).set(auth('bob')), 404, 'project_not_found');
    });

    it('lets any member leave, but not the last manager', async () => {
      const id = await projectWith({ alice: 'manager', bob: 'contributor', vic: 'viewer' });
      expect((await removeMember('vic', id, idOf('vic'))).status).toBe(204);
      expect((await removeMember('bob', id, idOf('bob'))).status).toBe(204);
      expectError(await removeMember('alice', id, idOf('alice')), 409, 'last_manager');
      expectError(await removeMember('admin', id, idOf('alice')), 409, 'last_manager');
      expect(await membersOf(id)).toEqual([{ userId: idOf('alice'), username: 'alice', role: 'manager' }]);
    });

    it('answers 404 member_not_found for a user who is not a member', async () => {
      expectError(await removeMember('alice', f.projectId, idOf('nora')), 404, 'member_not_found');
      expectError(await removeMember('alice', f.projectId, randomUUID()), 404, 'member_not_found');
    });

    it('answers 403 to a contributor or viewer removing someone else, and 404 to a non-member', async () => {
      expectError(await removeMember('bob', f.projectId, idOf('vic')), 403, 'forbidden');
      expectError(await removeMember('vic', f.projectId, idOf('bob')), 403, 'forbidden');
      expectError(await removeMember('nora', f.projectId, idOf('bob')), 404, 'project_not_found');
      expectError(await removeMember('nora', f.projectId, idOf('nora')), 404, 'project_not_found');
      expect(await membersOf(f.projectId)).toHaveLength(3);
    });
  });

  describe('concurrency', () => {
    it('two managers demoting each other at once leave exactly one manager', async () => {
      for (let round = 0; round < 8; round++) {
        const id = await projectWith({ mona: 'manager', mike: 'manager' });
        const responses = await Promise.all([
          putMember('mona', id, idOf('mike'), { role: 'contributor' }),
          putMember('mike', id, idOf('mona'), { role: 'contributor' }),
        ]);
        expect(responses.map((response) => response.status).sort((a, b) => a - b)).toEqual([200, 403]);
        const members = await membersOf(id);
        expect(members.filter((m) => m.role === 'manager')).toHaveLength(1);
      }
    });

    it('an administrator demoting and removing both managers at once leaves exactly one', async () => {
      for (let round = 0; round < 8; round++) {
        const id = await projectWith({ mona: 'manager', mike: 'manager' });
        const responses = await Promise.all([
          putMember('admin', id, idOf('mike'), { role: 'viewer' }),
          removeMember('admin', id, idOf('mona')),
        ]);
        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status === 409)).toHaveLength(1);
        expect((await membersOf(id)).filter((m) => m.role === 'manager')).toHaveLength(1);
      }
    });

    it('the same user added twice at once is added once, with one event', async () => {
      const id = await projectWith({ alice: 'manager' });
      const responses = await Promise.all([
        putMember('alice', id, idOf('nora'), { role: 'viewer' }),
        putMember('admin', id, idOf('nora'), { role: 'viewer' }),
      ]);
      for (const response of responses) expect([200, 409]).toContain(response.status);
      expect((await membersOf(id)).filter((m) => m.username === 'nora')).toHaveLength(1);
      expect(await memberAddedEvents(id, idOf('nora'))).toHaveLength(1);
    });
  });
});
