import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { invalidBody, invalidQuery } from './request-guards.js';
import { BODYLESS_ROUTE } from './transfer-routes.js';

const withQuery = (query: Record<string, string | string[]>) =>
  ({ query, routeOptions: { config: {} } }) as unknown as FastifyRequest;
const withBody = (body: unknown) =>
  ({ method: 'PUT', body, routeOptions: { config: {} } }) as unknown as FastifyRequest;

describe('request guards', () => {
  it('refuses query parameter names and values with lone surrogates, naming the parameter', () => {
    expect(invalidQuery(withQuery({ status: 'read', cursor: 'ab\ud800' }))?.details).toBe(
      'cursor must not contain unpaired UTF-16 surrogates (ill-formed Unicode)',
    );
    expect(invalidQuery(withQuery({ status: ['read', '\udfff'] }))?.details).toMatch(/^status must not/);
    expect(invalidQuery(withQuery({ ['x\ud800']: '1' }))?.details).toMatch(/^query parameter names must not/);
    expect(invalidQuery(withQuery({ status: 'read', tag: '💥' }))).toBeUndefined();
  });

  it('names the path of a lone surrogate in a body', () => {
    expect(invalidBody(withBody({ tags: ['a', 'b\ud800'] }))?.details).toMatch(/^tags\[1\] must not/);
    expect(invalidBody(withBody({ metadata: { a: [{ b: '\udc00' }] } }))?.details).toMatch(
      /^metadata\.a\[0\]\.b must not/,
    );
    expect(invalidBody(withBody({ metadata: { ['k\ud800']: 1 } }))?.details).toMatch(/^metadata must not have keys/);
    expect(invalidBody(withBody({ title: 'fine 💥' }))).toBeUndefined();
  });

  it('refuses top-level keys named after Object.prototype members, in the words of the pipe', () => {
    expect(invalidBody(withBody({ title: 'x', toString: 'x' }))?.details).toBe('property toString should not exist');
    expect(invalidQuery(withQuery({ valueOf: '1', hasOwnProperty: '2' }))?.details).toBe(
      'property valueOf should not exist; property hasOwnProperty should not exist',
    );
    expect(invalidBody(withBody({ metadata: { toString: 'x' } }))).toBeUndefined();
  });

  it('lets a PUT without a body through only on a body-less route', () => {
    const put = (config: object) =>
      ({ method: 'PUT', body: undefined, routeOptions: { config } }) as unknown as FastifyRequest;
    expect(invalidBody(put({}))?.code).toBe('validation_failed');
    expect(invalidBody(put(BODYLESS_ROUTE))).toBeUndefined();
    expect(invalidBody({ ...put(BODYLESS_ROUTE), body: [] })?.code).toBe('validation_failed');
  });
});
