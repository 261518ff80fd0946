import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

// Every length bound counts Unicode code points, what MySQL's VARCHAR(n) stores in utf8mb4.
const VS16 = '\uFE0F'; // variation selector: a code point of its own that validator.js did not count
const heart = `\u2764${VS16}`; // ❤️: 2 code points

describe.each(databasesUnderTest())('text bounds and well-formed text on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let documentId: string;

  const put = (body: unknown) =>
    request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify(body));
  const stored = async () =>
    (
      await t.dataSource.query<{ title: string; tags: string; rowVersion: number }[]>(
        'SELECT title, tags, rowVersion FROM documents WHERE id = ?',
        [documentId],
      )
    )[0];
  const historyCount = async () =>
    Number(
      (
        await t.dataSource.query<{ n: number | string }[]>(
          'SELECT COUNT(*) AS n FROM document_history WHERE documentId = ?',
          [documentId],
        )
      )[0].n,
    );

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('alice');
    documentId = t.seed.documents.find((document) => document.uploadedBy === t.user('alice').id)!.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses text over its bound in code points with 400, however a validator would count characters', async () => {
    const before = JSON.stringify(await stored());
    const cases: [unknown, RegExp][] = [
      [{ title: heart.repeat(128) }, /^title must be shorter than or equal to 255 characters \(Unicode code points\)$/],
      [{ title: `a${VS16}`.repeat(255) }, /^title must be shorter than or equal to 255 characters/],
      [{ title: '💥'.repeat(256) }, /^title must be shorter than or equal to 255 characters/],
      [{ description: `a${VS16}`.repeat(5001) }, /^description must be shorter than or equal to 10000 characters/],
      [{ tags: ['ok', `a${VS16}`.repeat(64)] }, /^each tag must be 1-64 characters \(Unicode code points\)/],
      [{ tags: ['x'.repeat(65)] }, /^each tag must be 1-64 characters/],
    ];
    for (const [body, details] of cases) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringMatching(details) });
    }
    expect(JSON.stringify(await stored())).toBe(before);
  });

  it('accepts text exactly at its bound and stores it as sent', async () => {
    const title = `${heart.repeat(127)}a`; // 255 code points, 255 UTF-16 units
    const tags = ['💥'.repeat(64), `b${VS16}`.repeat(32)];
    for (const body of [{ title, tags }, { title: '💥'.repeat(255) }]) {
      const response = await put(body);
      expect(response.status).toBe(200);
      expect(response.body.document).toMatchObject(body);
      const row = await stored();
      expect(row.title).toBe(body.title);
    }
    expect(JSON.parse((await stored()).tags)).toEqual(tags);
  });

  it('refuses a login username over 255 code points with 400, before any lookup', async () => {
    const response = await request(t.url)
      .post('/api/auth/login')
      .send({ username: `a${VS16}`.repeat(128), password: TEST_PASSWORD });
    expect(response.status).toBe(400);
    expect(response.body.details).toMatch(/^username must be shorter than or equal to 255 characters/);
  });

  it('refuses lone surrogates in every text field with a 400 naming the field, and writes nothing', async () => {
    const before = JSON.stringify(await stored());
    const entries = await historyCount();
    const cases: [string, string][] = [
      ['{"title": "lone \\ud800 x"}', 'title'],
      ['{"title": "trailing \\udfff"}', 'title'],
      ['{"description": "a\\ud83d"}', 'description'],
      ['{"tags": ["fine", "bad\\udc00"]}', 'tags[1]'],
      ['{"metadata": {"note": "\\ud800"}}', 'metadata.note'],
      ['{"metadata": {"deep": {"list": [1, "\\ude00"]}}}', 'metadata.deep.list[1]'],
      ['{"metadata": {"key\\ud800": 1}}', 'metadata'],
    ];
    // The same refused PUT three times: no version bump, no history entry, nothing stored.
    for (let attempt = 0; attempt < 3; attempt++) {
      for (const [body, field] of cases) {
        const response = await request(t.url)
          .put(`/api/documents/${documentId}`)
          .set('authorization', `Bearer ${token}`)
          .set('content-type', 'application/json')
          .send(body);
        expect(response.status, body).toBe(400);
        expect(response.body).toEqual({
          error: 'validation_failed',
          details: expect.stringMatching(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')} must not`)),
        });
        expect(response.text).not.toMatch(/\\ud[89a-f]/i);
      }
    }
    expect(JSON.stringify(await stored())).toBe(before);
    expect(await historyCount()).toBe(entries);

    // A paired surrogate written as escapes is one well-formed code point and is accepted.
    const pair = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send('{"title": "pair \\ud83d\\udca5"}');
    expect(pair.status).toBe(200);
    expect(pair.body.document.title).toBe('pair 💥');
    expect((await stored()).title).toBe('pair 💥');
  });

  it('refuses lone surrogates in the login fields', async () => {
    for (const [body, field] of [
      [`{"username": "ali\\ud800ce", "password": "${TEST_PASSWORD}"}`, 'username'],
      ['{"username": "alice", "password": "x\\udc00"}', 'password'],
    ]) {
      const response = await request(t.url).post('/api/auth/login').set('content-type', 'application/json').send(body);
      expect(response.status, body).toBe(400);
      expect(response.body).toEqual({
        error: 'validation_failed',
        details: expect.stringMatching(`^${field} must not`),
      });
    }
  });
});
