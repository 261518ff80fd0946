// Calls every route the application registers as each persona of the matrix (test/support/authorization-matrix.ts)
// and expects the status the matrix gives; docs/operations.md's table is rendered from it.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS, type RouteAccess } from '../../src/common/http/route-access.js';
import { DocumentLock } from '../../src/document-locks/entities/document-lock.entity.js';
import { DocumentContent } from '../../src/content/entities/document-content.entity.js';
import { DocumentPreview } from '../../src/content/entities/document-preview.entity.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument, setMember } from '../support/document-fixtures.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';
import { ACCOUNT_CHANGES, NEW_USER } from '../support/account-changes.js';
import { MATRIX, PERSONAS, renderMatrix, type Fresh, type Persona } from '../support/authorization-matrix.js';
// Nest's own route metadata keys (RequestMapping writes them on every handler).
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/** Every route the application registers, as "METHOD /path", with its declared rule. */
function registeredRoutes(t: TestApp): { route: string; access: RouteAccess | undefined }[] {
  const routes: { route: string; access: RouteAccess | undefined }[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const prefix = String(Reflect.getMetadata('path', controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata('method', handler) as number | undefined;
        if (method === undefined) continue;
        const path = String(Reflect.getMetadata('path', handler) ?? '');
        routes.push({
          route: `${METHODS[method]} /${[prefix, path].filter((part) => part && part !== '/').join('/')}`,
          access:
            (Reflect.getMetadata(ROUTE_ACCESS, handler) as RouteAccess | undefined) ??
            (Reflect.getMetadata(ROUTE_ACCESS, controller) as RouteAccess | undefined),
        });
      }
    }
  }
  return routes;
}

function describeRule(access: RouteAccess | undefined): string {
  if (!access) return '(none)';
  if (access.kind === 'permission') return access.permission;
  if (access.kind === 'policy') return `policy: ${access.policy}`;
  return access.kind;
}

/** The status of an event stream's response head; the stream itself is not read. */
async function streamStatus(url: string, token: string | undefined): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: abort.signal,
  });
  abort.abort();
  return response.status;
}

describe('docs/operations.md renders the authorization matrix', () => {
  it('has the table exactly as the matrix below says', () => {
    const file = new URL('../../docs/operations.md', import.meta.url);
    let operations = readFileSync(file, 'utf8');
    // UPDATE_MATRIX=1 rewrites the table from the matrix (after adding routes), then checks it.
    if (process.env.UPDATE_MATRIX === '1') {
      const start = operations.indexOf('| Route | Rule |');
      const lines = operations.slice(start).split('\n');
      let end = lines.findIndex((line) => !line.startsWith('|'));
      while (lines[end] === '' || lines[end]?.startsWith('- `')) end++;
      const after = lines.slice(end).join('\n');
      operations = `${operations.slice(0, start)}${renderMatrix()}\n${after ? `\n${after}` : ''}`;
      writeFileSync(file, operations);
    }
    expect(operations).toContain(renderMatrix());
  });
});

describe.each(databasesUnderTest())('authorization matrix on %s', (kind) => {
  let t: TestApp;
  const tokens = {} as Record<Persona, string | undefined>;
  const ids = {} as Record<'vera' | 'mona' | 'nora' | 'tess', string>;
  let projectId: string;
  let documentId: string;

  /** Over HTTP as admin; the setup must succeed, so a failure stops the suite here. */
  const asAdmin = async (method: 'put' | 'delete', path: string, body?: object) => {
    const call = request(t.url)[method](path).set('authorization', `Bearer ${tokens.admin}`);
    const response = body ? await call.send(body) : await call;
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
  };

  /** The object a `fresh` row acts on, made anew (a document id), or put back (the member). */
  async function freshTarget(fresh: Fresh): Promise<string | undefined> {
    const contributor = t.user('alice').id;
    if (fresh === 'member') {
      await setMember(t, projectId, ids.tess, 'viewer');
      return undefined;
    }
    const id = await addDocument(t, {
      projectId,
      uploadedBy: contributor,
      title: `matrix ${fresh}`,
      status: fresh === 'document in review' ? 'in_review' : 'draft',
      ...(fresh === 'trashed document' ? { deletedAt: new Date(), deletedBy: contributor } : {}),
    });
    if (fresh === 'locked document') {
      const now = new Date();
      await t.dataSource.getRepository(DocumentLock).insert({
        documentId: id,
        holderId: contributor,
        acquiredAt: now,
        expiresAt: new Date(now.getTime() + 3_600_000),
      });
    }
    return id;
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    projectId = t.seed.projects[0].id;
    // A seeded document of alice's (it has a stored file) in that project.
    const [own] = await t.dataSource.query<{ id: string }[]>(
      'SELECT id FROM documents WHERE uploadedBy = ? AND projectId = ? ORDER BY id LIMIT 1',
      [t.user('alice').id, projectId],
    );
    documentId = own.id;
    // Its text, as extraction records it, so that GET …/text has something to serve.
    await t.dataSource.getRepository(DocumentContent).insert({
      documentId,
      version: 1,
      status: 'indexed',
      pages: 1,
      characters: 4,
      extractedAt: new Date(),
      error: null,
      text: 'Demo',
    });
    // And a preview: any stored file serves for the statuses (here the document's own).
    const [{ sha256, fileSize }] = await t.dataSource.query<{ sha256: string; fileSize: number }[]>(
      'SELECT sha256, fileSize FROM documents WHERE id = ?',
      [documentId],
    );
    await t.dataSource
      .getRepository(DocumentPreview)
      .insert({ documentId, version: 1, size: 'small', sha256, bytes: fileSize });
    const users = t.app.get(UsersService);
    const addUser = async (username: string, roleNames: string[]) =>
      (
        await users.create({
          username,
          email: `${username}@example.org`,
          firstName: username,
          lastName: 'Persona',
          password: TEST_PASSWORD,
          roleNames,
        })
      ).id;
    for (const name of ['vera', 'mona', 'nora', 'tess'] as const) ids[name] = await addUser(name, ['user']);
    const gone = await addUser('dora', ['admin']);

    tokens.anonymous = undefined;
    tokens.admin = await t.login('admin');
    // The seed makes admin the project's manager and everyone else a contributor: mona takes over
    // as manager, vera and tess join as viewers, and admin and erin leave, so each column shows
    // one way to a right (a project role, or a global permission alone).
    const project = `/api/projects/${projectId}/members`;
    await asAdmin('put', `${project}/${ids.mona}`, { role: 'manager' });
    await asAdmin('put', `${project}/${ids.vera}`, { role: 'viewer' });
    await asAdmin('put', `${project}/${ids.tess}`, { role: 'viewer' });
    await asAdmin('delete', `${project}/${t.user('erin').id}`);
    await asAdmin('delete', `${project}/${t.user('admin').id}`);

    tokens.viewer = await t.login('vera');
    tokens.contributor = await t.login('alice');
    tokens.anotherContributor = await t.login('bob');
    tokens.manager = await t.login('mona');
    tokens.nonMember = await t.login('nora');
    tokens.editor = await t.login('erin');
    tokens.deactivated = await t.login('dora');
    await users.update(gone, { isActive: false });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('has a row for every route the application registers, with the rule the route declares', () => {
    const registered = registeredRoutes(t)
      .map(({ route, access }) => `${route} ${describeRule(access)}`)
      .sort();
    const documented = MATRIX.map((row) => `${row.method} ${row.route} ${row.rule}`).sort();
    expect(documented).toEqual(registered);
  });

  it('has the personas it describes: their project roles as the notes say', async () => {
    const members = await request(t.url)
      .get(`/api/projects/${projectId}/members`)
      .set('authorization', `Bearer ${tokens.manager}`);
    const roles = Object.fromEntries(
      (members.body.members as { username: string; role: string }[]).map((member) => [member.username, member.role]),
    );
    expect(roles).toEqual({
      alice: 'contributor',
      bob: 'contributor',
      mona: 'manager',
      tess: 'viewer',
      vera: 'viewer',
    });
    const nonMember = await request(t.url).get('/api/projects').set('authorization', `Bearer ${tokens.nonMember}`);
    expect(nonMember.body.pagination.total).toBe(0);
  });

  it.each(MATRIX.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const answers: Record<string, number> = {};
    for (const persona of PERSONAS) {
      const target = row.fresh ? await freshTarget(row.fresh) : undefined;
      const path = row.route
        .replace(':documentId', target ?? documentId)
        .replace(':projectId', projectId)
        .replace(':userId', row.route.startsWith('/api/projects/') ? ids.tess : randomUUID())
        .replace(/:(roleId|documentTypeId|notificationId|commentId|shareId|webhookId|savedSearchId|legalHoldId)/, () =>
          randomUUID(),
        )
        .replace(':deliveryId', randomUUID())
        .replace(':key', 'amount')
        .replace(':link', 'A'.repeat(43));
      const token = tokens[persona];
      if (row.stream) {
        answers[persona] = await streamStatus(`${t.url}${path}`, token);
        continue;
      }
      let call = request(t.url)[row.method.toLowerCase() as 'get'](path);
      if (token) call = call.set('authorization', `Bearer ${token}`);
      const response = row.body ? await call.send(row.body) : await call;
      answers[persona] = response.status;
    }
    expect(answers).toEqual(Object.fromEntries(PERSONAS.map((persona, index) => [persona, row.expected[index]])));
  });

  describe('users:manage alone', () => {
    let uma: string;
    let who: Record<'admin' | 'uma' | 'nora', string>;
    let roles: Record<'admin' | 'editor' | 'user' | 'accounts', string>;
    beforeAll(async () => {
      const admin = await t.login('admin');
      const accounts = await request(t.url)
        .post('/api/roles')
        .set('authorization', `Bearer ${admin}`)
        .send({ name: 'accounts', permissions: { users: ['manage'] } });
      if (accounts.status !== 201) throw new Error(`creating the accounts role: ${accounts.status}`);
      const byName = Object.fromEntries((await t.dataSource.getRepository(Role).find()).map((r) => [r.name, r.id]));
      roles = { admin: byName.admin, editor: byName.editor, user: byName.user, accounts: byName.accounts };
      const created = await t.app
        .get(UsersService)
        .create({ ...NEW_USER, username: 'uma', email: 'uma@example.org', roleNames: ['accounts'] });
      who = { admin: t.user('admin').id, uma: created.id, nora: ids.nora };
      uma = await t.login('uma', NEW_USER.password);
    });

    it.each(Object.entries(ACCOUNT_CHANGES))('%s', async (_name, change) => {
      const agent = request(t.url);
      const call = change.method === 'POST' ? agent.post(change.path(who)) : agent.patch(change.path(who));
      const response = await call.set('authorization', `Bearer ${uma}`).send(change.body(roles));
      expect(response.status, JSON.stringify(response.body)).toBe(change.expected);
      expect(response.status !== 403 || /which you do not hold/.test(response.body.details)).toBe(true);
    });
  });
});
