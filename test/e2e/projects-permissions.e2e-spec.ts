import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { projectsApp, expectError } from '../support/projects-app.js';

type Persona = 'viewer' | 'contributor' | 'manager' | 'nonMember' | 'projectsAdmin' | 'anonymous';
const PERSONAS: Persona[] = ['viewer', 'contributor', 'manager', 'nonMember', 'projectsAdmin', 'anonymous'];

describe.each(databasesUnderTest())('projects: who may call each route on %s', (kind) => {
  const f = projectsApp(kind);
  const { api, auth, idOf, putMember, removeMember, membersOf } = f;

  describe('permission table', () => {
    /** Who each persona is on the project `f.projectId`. */
    const who: Record<Exclude<Persona, 'anonymous'>, string> = {
      viewer: 'vic',
      contributor: 'bob',
      manager: 'alice',
      nonMember: 'nora',
      projectsAdmin: 'admin',
    };
    const routes: {
      route: string;
      call: (headers: Record<string, string>) => Promise<Response>;
      expected: Record<Persona, number>;
    }[] = [
      {
        route: 'GET /api/projects',
        call: (headers) => api().get('/api/projects').set(headers),
        expected: { viewer: 200, contributor: 200, manager: 200, nonMember: 200, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'POST /api/projects',
        call: (headers) => api().post('/api/projects').set(headers).send({ name: 'Table row' }),
        expected: { viewer: 403, contributor: 403, manager: 403, nonMember: 403, projectsAdmin: 201, anonymous: 401 },
      },
      {
        route: 'GET /api/projects/{id}',
        call: (headers) => api().get(`/api/projects/${f.projectId}`).set(headers),
        expected: { viewer: 200, contributor: 200, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'PATCH /api/projects/{id}',
        call: (headers) => api().patch(`/api/projects/${f.projectId}`).set(headers).send({ name: 'Zephyr' }),
        expected: { viewer: 403, contributor: 403, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'GET /api/projects/{id}/members',
        call: (headers) => api().get(`/api/projects/${f.projectId}/members`).set(headers),
        expected: { viewer: 200, contributor: 200, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'PUT /api/projects/{id}/members/{userId}',
        call: (headers) =>
          api()
            .put(`/api/projects/${f.projectId}/members/${idOf('mike')}`)
            .set(headers)
            .send({ role: 'viewer' }),
        expected: { viewer: 403, contributor: 403, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'DELETE /api/projects/{id}/members/{userId}',
        call: (headers) =>
          api()
            .delete(`/api/projects/${f.projectId}/members/${idOf('mike')}`)
            .set(headers),
        expected: { viewer: 403, contributor: 403, manager: 204, nonMember: 404, projectsAdmin: 204, anonymous: 401 },
      },
    ];

    it.each(
      routes.flatMap(({ route, call, expected }) =>
        PERSONAS.map((persona) => ({ route, call, persona, status: expected[persona] })),
      ),
    )('$route as $persona answers $status', async ({ route, call, persona, status }) => {
      // mike is the member the membership routes change: present before each DELETE row, absent before each PUT row.
      if (route.startsWith('DELETE')) await putMember('admin', f.projectId, idOf('mike'), { role: 'viewer' });
      if (route.startsWith('PUT')) await removeMember('admin', f.projectId, idOf('mike'));
      const headers = persona === 'anonymous' ? {} : auth(who[persona]);
      const response = await call(headers);
      expect({ route, persona, status: response.status }).toEqual({ route, persona, status });
      if (status >= 400) {
        const code = { 401: 'unauthorized', 403: 'forbidden', 404: 'project_not_found' }[status];
        expectError(response, status, code!);
      }
      const mike = (await membersOf(f.projectId)).some((m) => m.username === 'mike');
      // Only an allowed PUT adds mike and only an allowed DELETE removes him.
      const changesMembers = route.startsWith('PUT') || route.startsWith('DELETE');
      const mikeExpected = route.startsWith('PUT') ? status === 200 : status !== 204;
      expect({ route, persona, mike: changesMembers ? mike : null }).toEqual({
        route,
        persona,
        mike: changesMembers ? mikeExpected : null,
      });
    });
  });
});
