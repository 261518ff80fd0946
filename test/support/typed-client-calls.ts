/**
 * The source of a small program written against types that openapi-typescript generates from the
 * live /docs-json, calling every operation (and its documented errors) through openapi-fetch.
 * test/e2e/typed-client.e2e-spec.ts writes it next to the generated `paths` type, compiles both
 * with tsc under strict, noUncheckedIndexedAccess and exactOptionalPropertyTypes, and runs it
 * against the running service. It is a string, not a module of this project, because the types
 * it imports exist only once the test has generated them.
 */
export const TYPED_CLIENT_CALLS = String.raw`
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.generated.js';

type ErrorCode = components['schemas']['ErrorResponseDto']['error'];

export interface Observed {
  step: string;
  status: number;
  error?: ErrorCode;
}

export async function exercise(
  baseUrl: string,
  login: { username: string; password: string },
  otherUsername: string,
  documentId: string,
): Promise<Observed[]> {
  const client = createClient<paths>({ baseUrl });
  const seen: Observed[] = [];
  const note = (step: string, response: Response, error?: { error: ErrorCode }) => {
    seen.push(error ? { step, status: response.status, error: error.error } : { step, status: response.status });
  };

  const live = await client.GET('/health/live');
  note('live', live.response, live.error);
  const liveStatus: 'ok' | undefined = live.data?.status;
  if (liveStatus !== 'ok') throw new Error('live: status is not ok');
  const ready = await client.GET('/health/ready');
  note('ready', ready.response, ready.error);

  const wrong = await client.POST('/api/auth/login', { body: { username: login.username, password: 'wrong-password' } });
  note('login wrong password', wrong.response, wrong.error);
  const empty = await client.POST('/api/auth/login', { body: { username: '', password: 'x' } });
  note('login empty username', empty.response, empty.error);

  const loggedIn = await client.POST('/api/auth/login', { body: login });
  note('login', loggedIn.response, loggedIn.error);
  if (!loggedIn.data) throw new Error('login failed');
  const expiresIn: number = loggedIn.data.expiresIn;
  const firstRole = loggedIn.data.user.roles[0]; // noUncheckedIndexedAccess: may be undefined
  if (expiresIn < 1 || firstRole?.name === undefined) throw new Error('login: unexpected body');
  const other = await client.POST('/api/auth/login', { body: { username: otherUsername, password: login.password } });
  if (!other.data) throw new Error('login of the other user failed');

  const auth = { Authorization: 'Bearer ' + loggedIn.data.token };
  const otherAuth = { Authorization: 'Bearer ' + other.data.token };

  const noToken = await client.GET('/api/notifications', { params: { query: {} } });
  note('notifications without token', noToken.response, noToken.error);
  const page = await client.GET('/api/notifications', { params: { query: { limit: 5, page: 1 } }, headers: auth });
  note('notifications', page.response, page.error);
  const nextCursor = page.data?.pagination.nextCursor ?? undefined;
  if (nextCursor !== undefined) {
    const next = await client.GET('/api/notifications', { params: { query: { cursor: nextCursor } }, headers: auth });
    note('notifications by cursor', next.response, next.error);
    const both = await client.GET('/api/notifications', {
      params: { query: { cursor: nextCursor, page: 2 } },
      headers: auth,
    });
    note('notifications page and cursor', both.response, both.error);
  }

  const path = { documentId };
  const updated = await client.PUT('/api/documents/{documentId}', {
    params: { path },
    headers: auth,
    body: { title: 'Typed client title', tags: ['typed'] },
  });
  note('update', updated.response, updated.error);
  const etag = updated.response.headers.get('etag');
  const title: string | undefined = updated.data?.document.title;
  if (!etag || title !== 'Typed client title') throw new Error('update: no ETag or title not applied');

  const stale = await client.PUT('/api/documents/{documentId}', {
    params: { path, header: { 'If-Match': '"v0"' } },
    headers: auth,
    body: {},
  });
  note('update with stale If-Match', stale.response, stale.error);
  const forbidden = await client.PUT('/api/documents/{documentId}', {
    params: { path },
    headers: otherAuth,
    body: { title: 'Not mine' },
  });
  note('update by another user', forbidden.response, forbidden.error);
  const missing = await client.PUT('/api/documents/{documentId}', {
    params: { path: { documentId: '00000000-0000-4000-8000-000000000000' } },
    headers: auth,
    body: {},
  });
  note('update unknown document', missing.response, missing.error);
  const tooLong = await client.PUT('/api/documents/{documentId}', {
    params: { path },
    headers: auth,
    body: { tags: ['x'.repeat(65)] },
  });
  note('update with a 65-character tag', tooLong.response, tooLong.error);

  const history = await client.GET('/api/documents/{documentId}/history', { params: { path }, headers: auth });
  note('history', history.response, history.error);
  const newest = history.data?.history[0];
  if (newest?.changes.title?.to !== 'Typed client title') throw new Error('history: newest change is not the title');

  const out = await client.POST('/api/auth/logout', { headers: auth });
  note('logout', out.response, out.error);
  const revoked = await client.POST('/api/auth/logout', { headers: auth });
  note('logout with a revoked token', revoked.response, revoked.error);
  return seen;
}
`;
