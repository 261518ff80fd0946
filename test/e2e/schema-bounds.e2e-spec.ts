import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS } from '../../src/documents/dto/update-document.dto.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Update = { title?: string; description?: string; tags?: string[]; metadata?: Record<string, unknown> };

/** 100 distinct tags of 64 characters each (a character as the validator counts it: one code point). */
const tags = (fill: string) =>
  Array.from({ length: DOCUMENT_LIMITS.tagsMax }, (_, index) => {
    const digits = String(index);
    return fill.repeat(DOCUMENT_LIMITS.tagMax - digits.length) + digits;
  });

/** {k: fill x count}; the JSON bound is 16,384 bytes, and {"k":""} takes 8 of them. */
const metadata = (fill: string, count: number) => ({ k: fill.repeat(count) });

/**
 * Any value within the documented bounds is storable, in the document and in its history (old and
 * new value of every changed field), on both databases: the history column must hold the worst case.
 */
describe.each(databasesUnderTest())('the largest valid updates on %s', (kind) => {
  let t: TestApp;
  let token: string;

  const put = (id: string, body: Update) =>
    request(t.url).put(`/api/documents/${id}`).set('Authorization', `Bearer ${token}`).send(body);
  const history = (id: string) =>
    request(t.url).get(`/api/documents/${id}/history`).set('Authorization', `Bearer ${token}`);

  /** Applies each update in turn; each answers 200 with the values, and the history lists every change. */
  const expectStored = async (id: string, updates: Update[]) => {
    for (const update of updates) {
      const response = await put(id, update);
      expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
      expect(response.body.document).toMatchObject(update);
    }
    const entries = (await history(id)).body.history as { changes: Record<string, { from: unknown; to: unknown }> }[];
    expect(entries).toHaveLength(updates.length);
    // Newest first: the last update's new values, and the previous update's values as old ones.
    const [latest, previous] = [updates.at(-1)!, updates.at(-2)!];
    for (const [field, value] of Object.entries(latest)) {
      expect(entries[0].changes[field]).toEqual({ from: previous[field as keyof Update], to: value });
    }
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('admin');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('stores description, metadata and tags at their bounds, twice (the issue 15 sequence)', async () => {
    const update = (fill: string): Update => ({
      description: fill.repeat(DOCUMENT_LIMITS.descriptionMax),
      metadata: metadata(fill, 16_374),
      tags: tags(fill),
    });
    await expectStored(t.seed.documents[0].id, [update('a'), update('b')]);
  });

  it('stores 10,000 four-byte characters in the description, twice', async () => {
    await expectStored(t.seed.documents[1].id, [
      { description: '😀'.repeat(DOCUMENT_LIMITS.descriptionMax) },
      { description: '😁'.repeat(DOCUMENT_LIMITS.descriptionMax) },
    ]);
  });

  it('stores every field at its bound in four-byte characters and escaped ones, twice', async () => {
    const update = (emoji: string, escaped: string, quoted: string): Update => ({
      title: emoji.repeat(DOCUMENT_LIMITS.titleMax),
      // Tabs and newlines are allowed in the description and take two bytes each in JSON.
      description: `${escaped}${emoji}`.repeat(DOCUMENT_LIMITS.descriptionMax / 2),
      tags: tags(emoji),
      metadata: metadata(quoted, (DOCUMENT_LIMITS.metadataMaxBytes - 8) / 2), // each escaped in two bytes
    });
    await expectStored(t.seed.documents[2].id, [update('😀', '\t', '"'), update('😁', '\n', '\\')]);
  });
});
