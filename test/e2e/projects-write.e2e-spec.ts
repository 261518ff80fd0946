import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { projectsApp, expectError, ISO_UTC } from '../support/projects-app.js';

describe.each(databasesUnderTest())('projects: create and change on %s', (kind) => {
  const f = projectsApp(kind);
  const { api, auth, idOf, createProject, membersOf, projectRow, memberAddedEvents, countRows, projectWith } = f;

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
        await api().patch(`/api/projects/${f.projectId}`).set(auth('bob')).send({ name: 'X' }),
        403,
        'forbidden',
      );
      expectError(
        await api().patch(`/api/projects/${f.projectId}`).set(auth('vic')).send({ name: 'X' }),
        403,
        'forbidden',
      );
      expectError(
        await api().patch(`/api/projects/${f.projectId}`).set(auth('nora')).send({ name: 'X' }),
        404,
        'project_not_found',
      );
      expect((await projectRow(f.projectId))?.name).toBe('Zephyr');
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: '💥'.repeat(256) }, 'name must be shorter than or equal to 255 characters'],
      [{ description: 'x'.repeat(2001) }, 'description'],
      [{ description: '\u2066' }, 'description must not contain'],
      [{ createdAt: '2020-01-01T00:00:00.000Z' }, 'property createdAt should not exist'],
    ])('rejects %j with 400 and changes nothing', async (body, message) => {
      const response = await api().patch(`/api/projects/${f.projectId}`).set(auth('alice')).send(body);
      expectError(response, 400, 'validation_failed');
      expect(response.body.details).toContain(message);
      expect(await projectRow(f.projectId)).toEqual({ name: 'Zephyr', description: '' });
    });
  });
});
