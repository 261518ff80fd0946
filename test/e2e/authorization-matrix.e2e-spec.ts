// The authorization matrix: every route the application registers, called as each persona, with
// the status each must get. The table below is the documentation: the README's "Authorization
// matrix" section is rendered from it (renderMatrix) and a test fails when the two differ.
// Requests are harmless on purpose: write bodies are {} (so an allowed caller gets 400 or 404,
// never a change) and ids are unknown, except the document rows, which show the document policy.
// Project personas (viewer, contributor, manager) and the project routes join as columns and rows.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS, type RouteAccess } from '../../src/common/http/route-access.js';
import { UsersService } from '../../src/users/users.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const PERSONAS = ['anonymous', 'user', 'anotherUser', 'editor', 'admin', 'deactivated'] as const;
type Persona = (typeof PERSONAS)[number];

const PERSONA_NOTES: Record<Persona, string> = {
  anonymous: 'no token',
  user: 'alice: role user, uploader of the document, contributor of the project',
  anotherUser: 'bob: role user, not the uploader, contributor of the project',
  editor: 'erin: roles editor + user (documents read, update), contributor of the project',
  admin: 'admin: role admin (every permission), manager of the project',
  deactivated: 'a token issued before its user was deactivated',
};

interface Row {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Route as Nest registers it (":param" placeholders). */
  route: string;
  /** Who may call it, as declared on the route. */
  rule: string;
  body?: object;
  expected: [anonymous: number, user: number, anotherUser: number, editor: number, admin: number, deactivated: number];
}

const NOBODY_ELSE = [401, 403, 403, 403] as const;

export const MATRIX: Row[] = [
  { method: 'GET', route: '/health/live', rule: 'public', expected: [200, 200, 200, 200, 200, 200] },
  { method: 'GET', route: '/health/ready', rule: 'public', expected: [200, 200, 200, 200, 200, 200] },
  { method: 'POST', route: '/api/auth/login', rule: 'public', body: {}, expected: [400, 400, 400, 400, 400, 400] },
  { method: 'GET', route: '/api/auth/me', rule: 'authenticated', expected: [401, 200, 200, 200, 200, 401] },
  {
    method: 'POST',
    route: '/api/auth/password',
    rule: 'authenticated',
    body: {},
    expected: [401, 400, 400, 400, 400, 401],
  },
  { method: 'GET', route: '/api/notifications', rule: 'session-in-query', expected: [401, 200, 200, 200, 200, 401] },
  {
    method: 'PUT',
    route: '/api/documents/:documentId',
    rule: 'policy: document',
    body: {},
    expected: [401, 200, 403, 200, 200, 401],
  },
  {
    method: 'GET',
    route: '/api/documents/:documentId/history',
    rule: 'policy: document',
    expected: [401, 200, 200, 200, 200, 401],
  },
  { method: 'GET', route: '/api/documents', rule: 'policy: document', expected: [401, 200, 200, 200, 200, 401] },
  { method: 'POST', route: '/api/documents', rule: 'policy: document', expected: [401, 415, 415, 415, 415, 401] },
  {
    method: 'GET',
    route: '/api/documents/:documentId',
    rule: 'policy: document',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'GET',
    route: '/api/documents/:documentId/content',
    rule: 'policy: document',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'HEAD',
    route: '/api/documents/:documentId/content',
    rule: 'policy: document',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'GET',
    route: '/api/documents/:documentId/versions',
    rule: 'policy: document',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'POST',
    route: '/api/documents/:documentId/versions',
    rule: 'policy: document',
    // A JSON body is refused (415), after the change permission, which is checked before any byte is read.
    expected: [401, 415, 403, 415, 415, 401],
  },
  { method: 'GET', route: '/api/documents/trash', rule: 'policy: document', expected: [401, 200, 200, 200, 200, 401] },
  {
    method: 'POST',
    route: '/api/documents/:documentId/status',
    rule: 'policy: document',
    body: {},
    expected: [401, 400, 400, 400, 400, 401],
  },
  {
    method: 'POST',
    route: '/api/documents/:documentId/restore',
    rule: 'policy: document',
    expected: [401, 404, 404, 404, 404, 401],
  },
  { method: 'GET', route: '/api/projects', rule: 'policy: project', expected: [401, 200, 200, 200, 200, 401] },
  { method: 'POST', route: '/api/projects', rule: 'projects:manage', body: {}, expected: [...NOBODY_ELSE, 400, 401] },
  {
    method: 'GET',
    route: '/api/projects/:projectId',
    rule: 'policy: project',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'PATCH',
    route: '/api/projects/:projectId',
    rule: 'policy: project',
    body: {},
    expected: [...NOBODY_ELSE, 200, 401],
  },
  {
    method: 'GET',
    route: '/api/projects/:projectId/members',
    rule: 'policy: project',
    expected: [401, 200, 200, 200, 200, 401],
  },
  {
    method: 'PUT',
    route: '/api/projects/:projectId/members/:userId',
    rule: 'policy: project',
    body: {},
    expected: [401, 400, 400, 400, 400, 401],
  },
  {
    method: 'DELETE',
    route: '/api/projects/:projectId/members/:userId',
    rule: 'policy: project',
    expected: [...NOBODY_ELSE, 404, 401],
  },
  { method: 'GET', route: '/api/document-types', rule: 'authenticated', expected: [401, 200, 200, 200, 200, 401] },
  {
    method: 'POST',
    route: '/api/document-types',
    rule: 'documentTypes:manage',
    body: {},
    expected: [...NOBODY_ELSE, 400, 401],
  },
  {
    method: 'PATCH',
    route: '/api/document-types/:documentTypeId',
    rule: 'documentTypes:manage',
    body: {},
    expected: [...NOBODY_ELSE, 404, 401],
  },
  {
    method: 'DELETE',
    route: '/api/document-types/:documentTypeId',
    rule: 'documentTypes:manage',
    expected: [...NOBODY_ELSE, 404, 401],
  },
  { method: 'GET', route: '/api/users', rule: 'users:manage', expected: [...NOBODY_ELSE, 200, 401] },
  { method: 'POST', route: '/api/users', rule: 'users:manage', body: {}, expected: [...NOBODY_ELSE, 400, 401] },
  { method: 'GET', route: '/api/users/:userId', rule: 'users:manage', expected: [...NOBODY_ELSE, 404, 401] },
  {
    method: 'PATCH',
    route: '/api/users/:userId',
    rule: 'users:manage',
    body: {},
    expected: [...NOBODY_ELSE, 404, 401],
  },
  {
    method: 'POST',
    route: '/api/users/:userId/password',
    rule: 'users:manage',
    body: {},
    expected: [...NOBODY_ELSE, 400, 401],
  },
  { method: 'GET', route: '/api/roles', rule: 'roles:manage', expected: [...NOBODY_ELSE, 200, 401] },
  { method: 'POST', route: '/api/roles', rule: 'roles:manage', body: {}, expected: [...NOBODY_ELSE, 400, 401] },
  {
    method: 'PATCH',
    route: '/api/roles/:roleId',
    rule: 'roles:manage',
    body: {},
    expected: [...NOBODY_ELSE, 404, 401],
  },
  { method: 'DELETE', route: '/api/roles/:roleId', rule: 'roles:manage', expected: [...NOBODY_ELSE, 404, 401] },
  { method: 'GET', route: '/api/audit-events', rule: 'audit:read', expected: [...NOBODY_ELSE, 200, 401] },
  // Last: it revokes the persona's token.
  // Late on purpose (before logout, which revokes the tokens): the uploader's DELETE moves the document to
  // the trash, so everyone after sees 404.
  {
    method: 'DELETE',
    route: '/api/documents/:documentId',
    rule: 'policy: document',
    expected: [401, 204, 404, 404, 404, 401],
  },
  { method: 'POST', route: '/api/auth/logout', rule: 'authenticated', expected: [401, 204, 204, 204, 204, 401] },
];

/** The README table: one row per route, one column per persona. */
export function renderMatrix(): string {
  const header = `| Route | Rule | ${PERSONAS.join(' | ')} |`;
  const rule = `|---|---|${PERSONAS.map(() => '---').join('|')}|`;
  const rows = MATRIX.map((row) => `| \`${row.method} ${row.route}\` | ${row.rule} | ${row.expected.join(' | ')} |`);
  const notes = PERSONAS.map((persona) => `- \`${persona}\`: ${PERSONA_NOTES[persona]}`);
  return [header, rule, ...rows, '', ...notes].join('\n');
}

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

describe('the README renders the authorization matrix', () => {
  it('has the table exactly as the matrix below says', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(renderMatrix());
  });
});

describe.each(databasesUnderTest())('authorization matrix on %s', (kind) => {
  let t: TestApp;
  const tokens = {} as Record<Persona, string | undefined>;
  let documentId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    documentId = t.seed.documents.find((document) => document.uploadedBy === t.user('alice').id)!.id;
    tokens.anonymous = undefined;
    tokens.user = await t.login('alice');
    tokens.anotherUser = await t.login('bob');
    tokens.editor = await t.login('erin');
    tokens.admin = await t.login('admin');
    const users = t.app.get(UsersService);
    const gone = await users.create({
      username: 'dora',
      email: 'dora@example.org',
      firstName: 'Dora',
      lastName: 'Gone',
      password: TEST_PASSWORD,
      roleNames: ['admin'],
    });
    tokens.deactivated = await t.login('dora');
    await users.update(gone.id, { isActive: false });
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

  it.each(MATRIX.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const path = row.route
      .replace(':documentId', documentId)
      .replace(':projectId', t.seed.projects[0].id)
      .replace(/:(userId|roleId|documentTypeId)/, () => randomUUID());
    const answers: Record<string, number> = {};
    for (const persona of PERSONAS) {
      let call = request(t.url)[row.method.toLowerCase() as 'get'](path);
      const token = tokens[persona];
      if (token) call = call.set('authorization', `Bearer ${token}`);
      const response = row.body ? await call.send(row.body) : await call;
      answers[persona] = response.status;
    }
    expect(answers).toEqual(Object.fromEntries(PERSONAS.map((persona, index) => [persona, row.expected[index]])));
  });
});
