import { randomUUID } from 'node:crypto';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectError(response: Response, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: code } });
  expect(Object.keys(response.body).sort()).toEqual(['details', 'error']);
  expect(typeof response.body.details).toBe('string');
  expect(response.body.details.length).toBeGreaterThan(0);
}

type Persona = 'viewer' | 'contributor' | 'manager' | 'nonMember' | 'projectsAdmin' | 'anonymous';
const PERSONAS: Persona[] = ['viewer', 'contributor', 'manager', 'nonMember', 'projectsAdmin', 'anonymous'];

describe.each(databasesUnderTest())('projects and membership on %s', (kind) => {
  let t: TestApp;
  /** Bearer tokens by username. */
  const tokens: Record<string, string> = {};
  /** A project where alice manages, bob contributes, vic views, nora is no member and admin (projects:manage) is no member. */
  let projectId: string;

  const api = () => request(t.url);
  const auth = (username: string) => ({ Authorization: `Bearer ${tokens[username]}` });
  const idOf = (username: string) => users[username];
  const users: Record<string, string> = {};

  const createProject = (username: string, body: unknown) =>
    api()
      .post('/api/projects')
      .set(auth(username))
      .send(body as object);
  const putMember = (username: string, project: string, userId: string, body: unknown) =>
    api()
      .put(`/api/projects/${project}/members/${userId}`)
      .set(auth(username))
      .send(body as object);
  const removeMember = (username: string, project: string, userId: string) =>
    api().delete(`/api/projects/${project}/members/${userId}`).set(auth(username));
  const membersOf = async (project: string) => {
    const response = await api().get(`/api/projects/${project}/members`).set(auth('admin'));
    expect(response.status).toBe(200);
    return response.body.members as { userId: string; username: string; role: string }[];
  };
  const projectRow = async (id: string) =>
    (await t.dataSource.query('SELECT name, description FROM projects WHERE id = ?', [id]))[0] as
      { name: string; description: string } | undefined;
  interface MemberAddedEvent {
    actorId: string;
    projectId: string;
    documentId: string | null;
    subjectUserId: string;
    payload: unknown;
  }
  /** The project.member_added events of a project (about one user when given). */
  const memberAddedEvents = async (project: string, subject?: string) =>
    (
      await t.dataSource.query<MemberAddedEvent[]>(
        "SELECT actorId, projectId, documentId, subjectUserId, payload FROM outbox_events WHERE type = 'project.member_added' AND projectId = ?",
        [project],
      )
    ).filter((event) => subject === undefined || event.subjectUserId === subject);
  const countRows = async (table: string) =>
    Number((await t.dataSource.query(`SELECT COUNT(*) AS total FROM ${table}`))[0].total);

  /** A fresh project created by admin, with the given members (admin leaves it unless listed). */
  async function projectWith(members: Record<string, string>, name = `Project ${randomUUID()}`): Promise<string> {
    const created = await createProject('admin', { name });
    expect(created.status).toBe(201);
    const id = created.body.project.id as string;
    for (const [username, role] of Object.entries(members)) {
      expect((await putMember('admin', id, idOf(username), { role })).status).toBe(200);
    }
    const adminLeft = 'admin' in members ? 204 : (await removeMember('admin', id, idOf('admin'))).status;
    expect(adminLeft).toBe(204);
    return id;
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    const service = t.app.get(UsersService);
    for (const username of ['vic', 'nora', 'mona', 'mike']) {
      await service.create({
        username,
        email: `${username}@example.com`,
        firstName: username,
        lastName: 'Test',
        password: TEST_PASSWORD,
        roleNames: ['user'],
      });
    }
    for (const username of ['admin', 'alice', 'bob', 'erin', 'vic', 'nora', 'mona', 'mike']) {
      tokens[username] = await t.login(username);
    }
    for (const row of await t.dataSource.query<{ id: string; username: string }[]>('SELECT id, username FROM users')) {
      users[row.username] = row.id;
    }
    projectId = await projectWith({ alice: 'manager', bob: 'contributor', vic: 'viewer' }, 'Zephyr');
  });

  afterAll(async () => {
    await t?.close();
  });

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
      expect(apollo.id).toBe(t.seed.projects.find((p) => p.name === 'Apollo')!.id);
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
      const zephyr = response.body.projects.find((p: { id: string }) => p.id === projectId);
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

  describe('POST /api/projects', () => {
    it('creates the project with the creator as manager, answering 201 with Location', async () => {
      const response = await createProject('admin', { name: 'Orion', description: 'Line one\nline two' });
      expect(response.status).toBe(201);
      const { project } = response.body;
      expect(project).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Orion',
        description: 'Line one\nline two',
        createdAt: expect.stringMatching(ISO_UTC),
        role: 'manager',
      });
      expect(response.headers.location).toBe(`/api/projects/${project.id}`);
      const read = await api().get(response.headers.location).set(auth('admin'));
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ project });
      expect(await membersOf(project.id)).toEqual([{ userId: idOf('admin'), username: 'admin', role: 'manager' }]);
      // The creator is the actor: no member_added event tells them of their own act.
      expect(await memberAddedEvents(project.id)).toEqual([]);
    });

    it('defaults the description to empty', async () => {
      const response = await createProject('admin', { name: 'Bare' });
      expect(response.status).toBe(201);
      expect(response.body.project.description).toBe('');
      expect(await projectRow(response.body.project.id)).toEqual({ name: 'Bare', description: '' });
    });

    it('accepts 255 code points of name and 2,000 of description (astral characters count once)', async () => {
      const response = await createProject('admin', { name: '💥'.repeat(255), description: '💥'.repeat(2000) });
      expect(response.status).toBe(201);
      expect(await projectRow(response.body.project.id)).toEqual({
        name: '💥'.repeat(255),
        description: '💥'.repeat(2000),
      });
    });

    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name must not be blank'],
      [{ name: null }, 'name'],
      [{ name: 42 }, 'name must be a string'],
      [{ name: '💥'.repeat(256) }, 'name must be shorter than or equal to 255 characters'],
      [{ name: 'Tab\there' }, 'name must not contain control characters'],
      [{ name: 'Evil\u202Etxt.exe' }, 'name must not contain control characters'],
      [{ name: 'Ok', description: 'x'.repeat(2001) }, 'description must be shorter than or equal to 2000 characters'],
      [{ name: 'Ok', description: 'bell\u0007' }, 'description must not contain control characters'],
      [{ name: 'Ok', description: null }, 'description must be a string'],
      [{ name: 'Ok', id: randomUUID() }, 'property id should not exist'],
      [{ name: 'Ok', members: [] }, 'property members should not exist'],
    ])('rejects %j with 400 (%s) and creates nothing', async (body, message) => {
      const before = await countRows('projects');
      const response = await createProject('admin', body);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(message);
      expect(await countRows('projects')).toBe(before);
    });

    it('answers 403 to a user without projects:manage, even a project manager', async () => {
      const before = await countRows('projects');
      expectError(await createProject('alice', { name: 'Mine' }), 403, 'forbidden');
      expectError(await createProject('erin', { name: 'Mine' }), 403, 'forbidden');
      expect(await countRows('projects')).toBe(before);
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
        const response = await api().get(`/api/projects/${projectId}`).set(auth(username));
        expect(response.status).toBe(200);
        expect(response.body.project).toMatchObject({ id: projectId, name: 'Zephyr', role });
      }
    });

    it('answers 404 project_not_found to a non-member and for an unknown id, never 403', async () => {
      expectError(await api().get(`/api/projects/${projectId}`).set(auth('nora')), 404, 'project_not_found');
      expectError(await api().get(`/api/projects/${randomUUID()}`).set(auth('admin')), 404, 'project_not_found');
    });

    it('takes the id in any letter case and rejects a non-UUID with 400', async () => {
      const response = await api().get(`/api/projects/${projectId.toUpperCase()}`).set(auth('bob'));
      expect(response.status).toBe(200);
      expect(response.body.project.id).toBe(projectId);
      const bad = await api().get('/api/projects/not-a-uuid').set(auth('bob'));
      expectError(bad, 400, 'validation_failed');
      expect(bad.body.details).toContain('projectId');
    });
  });

  describe('PATCH /api/projects/{id}', () => {
    it('lets a manager change the name and description; omitted fields keep their value', async () => {
      const id = await projectWith({ alice: 'manager' }, 'Before');
      const renamed = await api().patch(`/api/projects/${id}`).set(auth('alice')).send({ name: 'After' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.project).toMatchObject({ id, name: 'After', description: '', role: 'manager' });
      const described = await api().patch(`/api/projects/${id}`).set(auth('admin')).send({ description: 'New text' });
      expect(described.status).toBe(200);
      expect(described.body.project).toMatchObject({ name: 'After', description: 'New text', role: null });
      expect(await projectRow(id)).toEqual({ name: 'After', description: 'New text' });
      const same = await api().patch(`/api/projects/${id}`).set(auth('alice')).send({});
      expect(same.status).toBe(200);
      expect(same.body.project).toEqual({ ...described.body.project, role: 'manager' });
    });

    it('answers 403 to a contributor or viewer and 404 to a non-member, changing nothing', async () => {
      expectError(
        await api().patch(`/api/projects/${projectId}`).set(auth('bob')).send({ name: 'X' }),
        403,
        'forbidden',
      );
      expectError(
        await api().patch(`/api/projects/${projectId}`).set(auth('vic')).send({ name: 'X' }),
        403,
        'forbidden',
      );
      expectError(
        await api().patch(`/api/projects/${projectId}`).set(auth('nora')).send({ name: 'X' }),
        404,
        'project_not_found',
      );
      expect((await projectRow(projectId))?.name).toBe('Zephyr');
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: '💥'.repeat(256) }, 'name must be shorter than or equal to 255 characters'],
      [{ description: 'x'.repeat(2001) }, 'description'],
      [{ description: '\u2066' }, 'description must not contain'],
      [{ createdAt: '2020-01-01T00:00:00.000Z' }, 'property createdAt should not exist'],
    ])('rejects %j with 400 and changes nothing', async (body, message) => {
      const response = await api().patch(`/api/projects/${projectId}`).set(auth('alice')).send(body);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(message);
      expect(await projectRow(projectId)).toEqual({ name: 'Zephyr', description: '' });
    });
  });

  describe('GET /api/projects/{id}/members', () => {
    it('lists every member with username and role, by username, to any member', async () => {
      for (const username of ['alice', 'bob', 'vic', 'admin']) {
        const response = await api().get(`/api/projects/${projectId}/members`).set(auth(username));
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
      expectError(await api().get(`/api/projects/${projectId}/members`).set(auth('nora')), 404, 'project_not_found');
    });
  });

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
      expectError(await putMember('alice', projectId, randomUUID(), { role: 'viewer' }), 404, 'user_not_found');
      expect(await countRows('project_members')).toBe(before);
    });

    it.each([
      [{}, 'role must be one of: viewer, contributor, manager'],
      [{ role: 'owner' }, 'role must be one of: viewer, contributor, manager'],
      [{ role: 'Manager' }, 'role must be one of'],
      [{ role: ['viewer'] }, 'role must be one of'],
      [{ role: 'viewer', since: 'now' }, 'property since should not exist'],
    ])('rejects %j with 400 and changes nothing', async (body, message) => {
      const response = await putMember('alice', projectId, idOf('bob'), body);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(message);
      expect((await membersOf(projectId)).find((m) => m.username === 'bob')?.role).toBe('contributor');
    });

    it('rejects a non-UUID user id with 400 naming it', async () => {
      const response = await putMember('alice', projectId, 'bob', { role: 'viewer' });
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
      expectError(await removeMember('alice', projectId, idOf('nora')), 404, 'member_not_found');
      expectError(await removeMember('alice', projectId, randomUUID()), 404, 'member_not_found');
    });

    it('answers 403 to a contributor or viewer removing someone else, and 404 to a non-member', async () => {
      expectError(await removeMember('bob', projectId, idOf('vic')), 403, 'forbidden');
      expectError(await removeMember('vic', projectId, idOf('bob')), 403, 'forbidden');
      expectError(await removeMember('nora', projectId, idOf('bob')), 404, 'project_not_found');
      expectError(await removeMember('nora', projectId, idOf('nora')), 404, 'project_not_found');
      expect(await membersOf(projectId)).toHaveLength(3);
    });
  });

  describe('permission table', () => {
    /** Who each persona is on the project `projectId`. */
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
        call: (headers) => api().get(`/api/projects/${projectId}`).set(headers),
        expected: { viewer: 200, contributor: 200, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'PATCH /api/projects/{id}',
        call: (headers) => api().patch(`/api/projects/${projectId}`).set(headers).send({ name: 'Zephyr' }),
        expected: { viewer: 403, contributor: 403, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'GET /api/projects/{id}/members',
        call: (headers) => api().get(`/api/projects/${projectId}/members`).set(headers),
        expected: { viewer: 200, contributor: 200, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'PUT /api/projects/{id}/members/{userId}',
        call: (headers) =>
          api()
            .put(`/api/projects/${projectId}/members/${idOf('mike')}`)
            .set(headers)
            .send({ role: 'viewer' }),
        expected: { viewer: 403, contributor: 403, manager: 200, nonMember: 404, projectsAdmin: 200, anonymous: 401 },
      },
      {
        route: 'DELETE /api/projects/{id}/members/{userId}',
        call: (headers) =>
          api()
            .delete(`/api/projects/${projectId}/members/${idOf('mike')}`)
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
      if (route.startsWith('DELETE')) await putMember('admin', projectId, idOf('mike'), { role: 'viewer' });
      if (route.startsWith('PUT')) await removeMember('admin', projectId, idOf('mike'));
      const headers = persona === 'anonymous' ? {} : auth(who[persona]);
      const response = await call(headers);
      expect({ route, persona, status: response.status }).toEqual({ route, persona, status });
      if (status >= 400) {
        const code = { 401: 'unauthorized', 403: 'forbidden', 404: 'project_not_found' }[status];
        expectError(response, status, code!);
      }
      const mike = (await membersOf(projectId)).some((m) => m.username === 'mike');
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
