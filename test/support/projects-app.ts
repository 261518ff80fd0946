// The app, personas and helpers shared by the projects e2e specs (one spec per operation).
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { UsersService } from '../../src/users/users.service.js';
import type { DatabaseKind } from './databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from './test-app.js';

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export { expectError } from './expect-error.js';

export interface MemberAddedEvent {
  actorId: string;
  projectId: string;
  documentId: string | null;
  subjectUserId: string;
  payload: unknown;
}

/**
 * Registers the suite's beforeAll/afterAll: an app on a fresh database, the users vic, nora, mona
 * and mike (role user) beside the seeded ones, a token for each, and the project "Zephyr" where
 * alice manages, bob contributes, vic views, and nora and admin (projects:manage) are no members.
 */
export function projectsApp(kind: DatabaseKind) {
  let t: TestApp;
  let projectId: string;
  const tokens: Record<string, string> = {};
  const users: Record<string, string> = {};

  const api = () => request(t.url);
  const auth = (username: string) => ({ Authorization: `Bearer ${tokens[username]}` });
  const idOf = (username: string) => users[username];
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

  return {
    get t() {
      return t;
    },
    get projectId() {
      return projectId;
    },
    api,
    auth,
    idOf,
    createProject,
    putMember,
    removeMember,
    membersOf,
    projectRow,
    memberAddedEvents,
    countRows,
    projectWith,
  };
}
