import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_EVENT_TYPES } from '../../src/events/domain-event.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const IMMEDIATE = { mode: 'immediate', delayMinutes: 15 };
const OFF = { mode: 'off', delayMinutes: 15 };

describe.each(databasesUnderTest())('GET and PUT /api/notifications/preferences on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  let call: ReturnType<typeof apiCaller>;

  beforeAll(async () => {
    t = await createTestApp(kind);
    for (const username of ['alice', 'erin']) tokens[username] = await t.login(username);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers the defaults for every event and stores any subset, for the caller only', async () => {
    const defaults = await call('erin', 'GET', '/api/notifications/preferences');
    expect(defaults.status).toBe(200);
    expect(Object.keys(defaults.body.preferences).toSorted()).toEqual([...DOMAIN_EVENT_TYPES].toSorted());
    expect(defaults.body.preferences['document.created']).toEqual({ in_app: true, email: OFF });
    expect(defaults.body.preferences['document.updated']).toEqual({ in_app: true, email: IMMEDIATE });
    expect(defaults.body.preferences['document.deleted']).toEqual({ in_app: true, email: OFF });
    expect(defaults.body.preferences['project.member_added']).toEqual({ in_app: true, email: IMMEDIATE });

    const put = await call('erin', 'PUT', '/api/notifications/preferences', {
      preferences: {
        'document.created': { in_app: false, email: { mode: 'if_unread', delayMinutes: 90 } },
        'document.deleted': { in_app: true, email: { mode: 'daily' } },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.preferences).toEqual({
      ...defaults.body.preferences,
      'document.created': { in_app: false, email: { mode: 'if_unread', delayMinutes: 90 } },
      'document.deleted': { in_app: true, email: { mode: 'daily', delayMinutes: 15 } },
    });
    expect((await call('erin', 'GET', '/api/notifications/preferences')).body).toEqual(put.body);
    // Other users keep their own.
    expect((await call('alice', 'GET', '/api/notifications/preferences')).body.preferences['document.created']).toEqual(
      { in_app: true, email: OFF },
    );
  });

  it('still takes the earlier body shape: email true (immediate) or false (off)', async () => {
    const put = await call('alice', 'PUT', '/api/notifications/preferences', {
      preferences: {
        'document.created': { in_app: true, email: true },
        'document.updated': { in_app: true, email: false },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.preferences['document.created']).toEqual({ in_app: true, email: IMMEDIATE });
    expect(put.body.preferences['document.updated']).toEqual({ in_app: true, email: OFF });
  });

  it('refuses malformed bodies with 400 validation_failed naming the problem, and stores nothing', async () => {
    const before = (await call('erin', 'GET', '/api/notifications/preferences')).body;
    const refusals: [unknown, RegExp][] = [
      [{}, /preferences is required/],
      [{ preferences: 'all' }, /preferences must be an object/],
      [{ preferences: [] }, /preferences must be an object/],
      [{ preferences: null }, /preferences is required/],
      [{ preferences: { 'document.exploded': { in_app: true, email: true } } }, /document\.exploded is not an event/],
      [{ preferences: { toString: { in_app: true, email: true } } }, /preferences\.toString is not an event type/],
      [{ preferences: { valueOf: { in_app: false, email: false } } }, /preferences\.valueOf is not an event type/],
      [{ preferences: { 'document.created': null } }, /preferences\.document\.created must be/],
      [{ preferences: { 'document.created': [] } }, /preferences\.document\.created must be/],
      [{ preferences: { 'document.created': { in_app: true } } }, /preferences\.document\.created must be/],
      [{ preferences: { 'document.created': { in_app: 'yes', email: true } } }, /preferences\.document\.created must/],
      [
        { preferences: { 'document.created': { in_app: true, email: true, sms: true } } },
        /preferences\.document\.created must be/,
      ],
      [{ preferences: { 'document.created': { in_app: true, email: { mode: 'weekly' } } } }, /must be/],
      [
        { preferences: { 'document.created': { in_app: true, email: { mode: 'if_unread', delayMinutes: 0 } } } },
        /must be/,
      ],
      [
        { preferences: { 'document.created': { in_app: true, email: { mode: 'if_unread', delayMinutes: 1441 } } } },
        /must be/,
      ],
      [{ preferences: { 'document.created': { in_app: true, email: { mode: 'off', extra: 1 } } } }, /must be/],
      // A valid entry beside an invalid one is not stored either.
      [
        { preferences: { 'document.updated': { in_app: false, email: false }, toString: {} } },
        /preferences\.toString is not an event type/,
      ],
    ];
    for (const [body, details] of refusals) {
      const refused = await call('erin', 'PUT', '/api/notifications/preferences', body);
      expect(refused, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
      expect(JSON.stringify(refused.body), JSON.stringify(body)).toMatch(details);
    }
    expect((await call('erin', 'GET', '/api/notifications/preferences')).body).toEqual(before);
  });
});
