import { ModulesContainer } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS, type RouteAccess } from '../../src/common/http/route-access.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface DeclaredRoute {
  route: string;
  access: RouteAccess | undefined;
}

// Nest's own route metadata keys (RequestMapping writes them on every handler).
const PATH = 'path';
const METHOD = 'method';
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/** Every route handler of every controller the application registered, with its declared access rule. */
function declaredRoutes(app: TestApp): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const module of app.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const prefix = String(Reflect.getMetadata(PATH, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD, handler) as number | undefined;
        if (method === undefined) continue;
        const path = String(Reflect.getMetadata(PATH, handler) ?? '');
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

describe('every route declares who may call it', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp('sqlite');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('finds the routes the application registers', () => {
    const routes = declaredRoutes(app).map((route) => route.route);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/auth/logout',
        'PUT /api/documents/:documentId',
        'GET /api/notifications',
        'GET /health/live',
      ]),
    );
  });

  it('has no route without an access rule', () => {
    const undeclared = declaredRoutes(app)
      .filter((route) => route.access === undefined)
      .map((route) => route.route);
    expect(undeclared).toEqual([]);
  });

  it('lists the public routes explicitly', () => {
    const open = declaredRoutes(app)
      .filter((route) => route.access?.kind === 'public')
      .map((route) => route.route)
      .sort();
    // The notification stream authenticates in its handler: by the header or by a single-use ticket;
    // a share link's token is its own permission.
    expect(open).toEqual([
      'GET /api/notifications/stream',
      'GET /health/live',
      'GET /health/ready',
      'GET /s/:link',
      'POST /api/auth/login',
    ]);
  });
});
