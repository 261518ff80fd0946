// Properties check different things for accepted and rejected requests, hence conditional expects.
/* oxlint-disable vitest/no-conditional-expect */
import * as fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// Seeded and bounded for CI; run longer with e.g. FUZZ_RUNS=2000 FUZZ_SEED=$RANDOM npm run test:e2e -- fuzz
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const options = { numRuns: RUNS, seed: SEED, endOnFailure: true };

// Single UTF-16 units, lone surrogates and variation selectors included: text a naive length
// rule or a UTF-8 encoder gets wrong.
const awkwardUnits = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom('\uFE0F', '\uFE0E', '\u2764\uFE0F', 'a\uFE0F', '\u0301', '💥'),
  fc.string({ minLength: 1, maxLength: 1 }),
);
const hostileStrings = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: awkwardUnits, maxLength: 40 }),
  // Near every length bound (64 tag, 255 title/username) once code points are counted.
  fc
    .tuple(fc.constantFrom('a\uFE0F', '\u2764\uFE0F', '💥', 'x'), fc.constantFrom(32, 63, 64, 65, 127, 128, 255, 256))
    .map(([unit, times]) => unit.repeat(times)),
  fc.constantFrom(
    "' OR 1=1 --",
    '"; DROP TABLE documents; --',
    '1; SELECT SLEEP(5)',
    '\u0000',
    '\u202e',
    '{"$ne": null}',
    '__proto__',
    'constructor',
    'lone \ud800 x',
    '\udc00',
    'NaN',
    'Infinity',
    '-1',
    '1e309',
    '0x10',
    ' 1',
    '',
    '💥'.repeat(100),
    'x'.repeat(70_000),
  ),
);
const hostileValues = fc.oneof(
  hostileStrings,
  fc.jsonValue({ maxDepth: 6 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileStrings, { maxLength: 5 }),
);
const bodyKeys = fc.constantFrom(
  'title',
  'description',
  'tags',
  'metadata',
  'id',
  'status',
  'uploadedBy',
  'currentVersion',
  '__proto__',
  'constructor',
  'username',
  'password',
  // Named after Object.prototype members: unknown fields all the same.
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
);
const INHERITED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Length in Unicode code points, the unit of every bound. */
const codePoints = (text: string) => Array.from(text).length;
const hasLoneSurrogate = (text: string) => /\p{Cs}/u.test(text);
// A URL carries UTF-8 bytes, which cannot spell a lone surrogate (encodeURIComponent throws on one).
const forUrl = (text: string) => encodeURIComponent(text.replace(/\p{Cs}/gu, '\uFFFD'));
const anyText = (value: unknown, test: (text: string) => boolean): boolean =>
  typeof value === 'string'
    ? test(value)
    : typeof value === 'object' && value !== null
      ? Object.entries(value).some(([key, item]) => test(key) || anyText(item, test))
      : false;

function expectErrorShape(response: request.Response): void {
  expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
  if (response.status >= 400) {
    expect(Object.keys(response.body).sort()).toEqual(['details', 'error']);
    expect(typeof response.body.error).toBe('string');
    expect(typeof response.body.details).toBe('string');
    expect(response.text).not.toMatch(/\n\s+at |QueryFailedError|SQLITE_|ER_[A-Z_]+|SELECT .* FROM/);
  }
}

describe.each(databasesUnderTest())('hostile input on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let documentId: string;

  const snapshot = async () =>
    JSON.stringify(
      await t.dataSource.query(
        'SELECT title, description, tags, metadata, status, uploadedBy, rowVersion, updatedAt FROM documents WHERE id = ?',
        [documentId],
      ),
    );

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('alice');
    documentId = t.seed.documents.find((document) => document.uploadedBy === t.user('alice').id)!.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('PUT /api/documents/{id}: random bodies never cause a 5xx, and rejected ones change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(bodyKeys, hostileValues, { maxKeys: 4 }), async (body) => {
        const before = await snapshot();
        const response = await request(t.url)
          .put(`/api/documents/${documentId}`)
          .set('authorization', `Bearer ${token}`)
          .set('content-type', 'application/json')
          .send(JSON.stringify(body));
        expectErrorShape(response);
        if (response.status !== 200) {
          expect(await snapshot()).toBe(before);
        } else {
          // Accepted means: only known fields, well-formed text within its bounds, and the answer is what was stored.
          expect(Object.keys(body).every((key) => !INHERITED_NAMES.has(key))).toBe(true);
          expect(anyText(body, hasLoneSurrogate)).toBe(false);
          const document = response.body.document;
          expect(codePoints(document.title)).toBeLessThanOrEqual(255);
          for (const tag of document.tags) expect(codePoints(tag)).toBeLessThanOrEqual(64);
          const [row] = await t.dataSource.query('SELECT title, description, tags FROM documents WHERE id = ?', [
            documentId,
          ]);
          expect(row.title).toBe(document.title);
          expect(row.description).toBe(document.description);
          expect(JSON.parse(row.tags)).toEqual(document.tags);
        }
      }),
      options,
    );
  });

  it('PUT: raw, malformed and oddly typed bodies and headers never cause a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileStrings, fc.json({ maxDepth: 4 })),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/xml', ''),
        fc.oneof(
          fc.constant('Bearer TOKEN'),
          hostileStrings.map((value) => `Bearer ${value}`),
          hostileStrings,
        ),
        async (raw, contentType, authorization) => {
          const before = await snapshot();
          const call = request(t.url).put(`/api/documents/${documentId}`);
          const header = authorization === 'Bearer TOKEN' ? `Bearer ${token}` : authorization;
          if (/^[\t\x20-\x7e]*$/.test(header)) void call.set('authorization', header);
          if (contentType) void call.set('content-type', contentType);
          const response = await call.send(raw);
          expectErrorShape(response);
          if (response.status !== 200) expect(await snapshot()).toBe(before);
        },
      ),
      options,
    );
  });

  it('PUT: random path ids never cause a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileStrings,
          fc.uuid(),
          fc.uuid().map((id) => id.toUpperCase()),
        ),
        async (id) => {
          const response = await request(t.url)
            .put(`/api/documents/${forUrl(id.slice(0, 500))}`)
            .set('authorization', `Bearer ${token}`)
            .send({ title: 'fuzzed' });
          expectErrorShape(response);
          expect([200, 400, 403, 404]).toContain(response.status);
        },
      ),
      options,
    );
  });

  it('PUT: the real id in any mix of letter case finds the document on every database', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }), async (upper) => {
        const id = documentId
          .split('')
          .map((c, index) => (upper[index] ? c.toUpperCase() : c))
          .join('');
        const response = await request(t.url)
          .put(`/api/documents/${id}`)
          .set('authorization', `Bearer ${token}`)
          .send({});
        expect(response.status).toBe(200);
        expect(response.body.document.id).toBe(documentId);
      }),
      options,
    );
  });

  it("GET /api/notifications: random query strings never cause a 5xx or show another user's data", async () => {
    const aliceId = t.user('alice').id;
    const keys = fc.constantFrom(
      'status',
      'type',
      'unreadOnly',
      'page',
      'limit',
      'status[$ne]',
      'page[]',
      'foo',
      'userId',
      'toString',
      'valueOf',
      'isPrototypeOf',
      'constructor',
      '__proto__',
      'hasOwnProperty',
    );
    const KNOWN_PARAMETERS = new Set(['status', 'type', 'unreadOnly', 'page', 'limit', 'cursor']);
    const values = fc.oneof(
      hostileStrings,
      fc.constantFrom(
        'read',
        'sent',
        'pending',
        'failed',
        'email',
        'sms',
        'push',
        'in_app',
        'true',
        'false',
        '1',
        '20',
        '100',
        '101',
        '0',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(keys, values), { maxLength: 5 }), async (pairs) => {
        const query = pairs.map(([key, value]) => `${forUrl(key)}=${forUrl(value.slice(0, 300))}`).join('&');
        const response = await request(t.url)
          .get(`/api/notifications?${query}`)
          .set('authorization', `Bearer ${token}`);
        expectErrorShape(response);
        if (response.status === 200) {
          for (const notification of response.body.notifications) expect(notification.userId).toBe(aliceId);
          expect(response.body.pagination.total).toBeLessThanOrEqual(t.seed.notifications[aliceId]);
        } else {
          expect(response.status).toBe(400);
        }
        if (pairs.some(([key]) => !KNOWN_PARAMETERS.has(key))) expect(response.status).toBe(400);
      }),
      options,
    );
  });

  it('POST /api/auth/login: random bodies never cause a 5xx and never log anyone in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(bodyKeys, hostileValues, { maxKeys: 3 }), async (body) => {
        const response = await request(t.url).post('/api/auth/login').send(body);
        expectErrorShape(response);
        expect([400, 401]).toContain(response.status);
        if (Object.keys(body).some((key) => key !== 'username' && key !== 'password'))
          expect(response.status).toBe(400);
      }),
      options,
    );
  });

  it('still answers normally afterwards', async () => {
    expect((await request(t.url).get('/health/ready')).status).toBe(200);
    const list = await request(t.url).get('/api/notifications').set('authorization', `Bearer ${token}`);
    expect(list.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
