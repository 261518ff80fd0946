import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument } from '../support/document-fixtures.js';
import { decide, documentStatus, requestReview } from '../support/reviews.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** REVIEW_POLICY=any: the first approval publishes; a rejection still returns the document to draft. */
describe.each(databasesUnderTest())('reviews with REVIEW_POLICY=any on %s', (kind) => {
  let t: TestApp;
  const tokens = {} as Record<'alice' | 'bob' | 'erin', string>;

  const submitted = async (title: string) => {
    const documentId = await addDocument(t, {
      projectId: t.seed.projects[0].id,
      uploadedBy: t.user('alice').id,
      title,
    });
    const reviewers = [t.user('bob').id, t.user('erin').id];
    expect((await requestReview(t, tokens.alice, documentId, { reviewers })).status).toBe(200);
    return documentId;
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { REVIEW_POLICY: 'any' });
    for (const name of ['alice', 'bob', 'erin'] as const) tokens[name] = await t.login(name);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('publishes on the first approval', async () => {
    const documentId = await submitted('any approves');
    const answer = await decide(t, tokens.erin, documentId, 'approve');
    expect(answer.body.review.state).toBe('approved');
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('published');
  });

  it('returns to draft on a rejection', async () => {
    const documentId = await submitted('any rejects');
    expect((await decide(t, tokens.bob, documentId, 'reject')).body.review.state).toBe('rejected');
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('draft');
  });
});
