import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { projectsApp, expectError, ISO_UTC } from '../support/projects-app.js';

describe.each(databasesUnderTest())('projects: list and read on %s', (kind) => {
  const f = projectsApp(kind);
  const { api, auth, idOf, countRows } = f;

  describe('GET /api/projects', () => {
    it("lists a member's projects with their role, by name", async () => {
      const response = await api().get('/api/projects').set(auth('bob'));
      expect(response.status).toBe(200);
      expect(response.body.projects.map((p: { name: string; role: string }) => [p.name, p.role])).toEqual([
        ['Apollo', 'contributor'],
        ['Hermes', 'contributor'],
        ['Zephyr', 'contributor'],
      ]);
      expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1, nextCursor: null });
      const [apollo] = response.body.projects;
      expect(Object.keys(apollo).sort()).toEqual(['createdAt', 'description', 'id', 'name', 'role']);
      expect(apollo.createdAt).toMatch(ISO_UTC);
      expect(apollo.id).toBe(f.t.seed.projects.find((p) => p.name === 'Apollo')!.id);
    });

    it('lists nothing for a user in no project', async () => {
      const response = await api().get('/api/projects').set(auth('nora'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        projects: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null },
      });
    });

    it('lists every project for projects:manage, with role null where the caller is no member', async () => {
      const response = await api().get('/api/projects?limit=100').set(auth('admin'));
      expect(response.status).toBe(200);
      const total = await countRows('projects');
      expect(response.body.pagination.total).toBe(total);
      expect(response.body.projects).toHaveLength(total);
      const zephyr = response.body.projects.find((p: { id: string }) => p.id === f.projectId);
      expect(zephyr.role).toBeNull();
      const apollo = response.body.projects.find((p: { name: string }) => p.name === 'Apollo');
      expect(apollo.role).toBe('manager');
    });

    it('pages by page and limit, and a page past the end is empty with the true total', async () => {
      const first = await api().get('/api/projects?limit=2&page=1').set(auth('bob'));
      const second = await api().get('/api/projects?limit=2&page=2').set(auth('bob'));
      const past = await api().get('/api/projects?limit=2&page=3').set(auth('bob'));
      expect(first.body.projects.map((p: { name: string }) => p.name)).toEqual(['Apollo', 'Hermes']);
      expect(second.body.projects.map((p: { name: string }) => p.name)).toEqual(['Zephyr']);
      expect(second.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null });
      expect(past.status).toBe(200);
      expect(past.body.projects).toEqual([]);
      expect(past.body.pagination.total).toBe(3);
    });

    it.each([
      ['page=0', 'page'],
      ['page=1000001', 'page'],
      ['page=1.5', 'page'],
      ['page=1&page=2', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=5&limit=5', 'limit'],
      ['cursor=abc', 'cursor'],
      ['name=Apollo', 'name'],
    ])('rejects ?%s with 400 naming %s', async (query, field) => {
      const response = await api().get(`/api/projects?${query}`).set(auth('bob'));
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(field);
    });
  });

  describe('GET /api/projects/{id}', () => {
    it("answers the project with the caller's role", async () => {
      for (const [username, role] of [
        ['alice', 'manager'],
        ['bob', 'contributor'],
        ['vic', 'viewer'],
        ['admin', null],
      ] as const) {
        const response = await api().get(`/api/projects/${f.projectId}`).set(auth(username));
        expect(response.status).toBe(200);
        expect(response.body.project).toMatchObject({ id: f.projectId, name: 'Zephyr', role });
      }
    });

    it('answers 404 project_not_found to a non-member and for an unknown id, never 403', async () => {
      expectError(await api().get(`/api/projects/${f.projectId}`).set(auth('nora')), 404, 'project_not_found');
      expectError(await api().get(`/api/projects/${randomUUID()}`).set(auth('admin')), 404, 'project_not_found');
    });

    it('takes the id in any letter case and rejects a non-UUID with 400', async () => {
      const response = await api().get(`/api/projects/${f.projectId.toUpperCase()}`).set(auth('bob'));
      expect(response.status).toBe(200);
      expect(response.body.project.id).toBe(f.projectId);
      const bad = await api().get('/api/projects/not-a-uuid').set(auth('bob'));
      expectError(bad, 400, 'validation_failed');
      expect(bad.body.details).toContain('projectId');
    });
  });

  describe('GET /api/projects/{id}/members', () => {
    it('lists every member with username and role, by username, to any member', async () => {
      for (const username of ['alice', 'bob', 'vic', 'admin']) {
        const response = await api().get(`/api/projects/${f.projectId}/members`).set(auth(username));
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          members: [
            { userId: idOf('alice'), username: 'alice', role: 'manager' },
            { userId: idOf('bob'), username: 'bob', role: 'contributor' },
            { userId: idOf('vic'), username: 'vic', role: 'viewer' },
          ],
        });
      }
    });

    it('answers 404 project_not_found to a non-member', async () => {
      expectError(await api().get(`/api/projects/${f.projectId}/members`).set(auth('nora')), 404, 'project_not_found');
    });
  });
});
