import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_NOTICES_JOB } from '../../src/reviews/review-reminders.scheduler.js';
import { ClusterJobs } from '../../src/scheduling/cluster-jobs.js';
import { databasesUnderTest } from '../support/databases.js';
import { addDocument, addUser } from '../support/document-fixtures.js';
import { expectError } from '../support/expect-error.js';
import { decide, documentStatus, requestReview, reviewEvents } from '../support/reviews.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

/** Reviews with people and dates (REVIEW_POLICY=all): alice submits her drafts to bob and erin. */
describe.each(databasesUnderTest())('reviews on %s', (kind) => {
  let t: TestApp;
  const clock = new TestClock(new Date('2026-11-27T10:00:00.000Z'));
  const tokens = {} as Record<'alice' | 'bob' | 'erin' | 'admin' | 'nina', string>;
  const ids = {} as Record<keyof typeof tokens, string>;
  let projectId: string;

  const draft = (title: string) => addDocument(t, { projectId, uploadedBy: ids.alice, title });
  const dueIn = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
  const submit = (documentId: string, extra: object = {}) =>
    requestReview(t, tokens.alice, documentId, { reviewers: [ids.bob, ids.erin], ...extra });
  const assigned = (who: keyof typeof tokens, query = '') =>
    request(t.url).get(`/api/reviews?assignedTo=me${query}`).set('authorization', `Bearer ${tokens[who]}`);

  beforeAll(async () => {
    t = await createTestApp(kind, {}, undefined, { clock });
    projectId = t.seed.projects[0].id;
    ids.nina = await addUser(t, 'nina');
    for (const name of ['alice', 'bob', 'erin', 'admin', 'nina'] as const) {
      tokens[name] = await t.login(name);
      ids[name] ??= t.user(name).id;
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('moves a draft to in_review with its reviewers, each told urgently', async () => {
    const documentId = await draft('contract');
    const response = await submit(documentId, { dueAt: dueIn(3 * DAY), message: 'Please check page 3.' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.review).toMatchObject({
      documentId,
      state: 'open',
      requestedBy: { id: ids.alice, username: 'alice' },
      message: 'Please check page 3.',
      dueAt: dueIn(3 * DAY),
      closedAt: null,
    });
    expect(response.body.review.reviewers.map((r: { username: string }) => r.username)).toEqual(['bob', 'erin']);
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('in_review');
    expect(await reviewEvents(t, documentId)).toEqual(['review.requested → bob', 'review.requested → erin']);
    const history = await request(t.url)
      .get(`/api/documents/${documentId}/history`)
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(history.body.history[0]).toMatchObject({ action: 'status_changed' });
    // Only from draft.
    expectError(await submit(documentId), 409, 'invalid_transition');
  });

  it('refuses reviewers who cannot read the document, past due dates, and readers who may not submit', async () => {
    const documentId = await draft('refusals');
    const unable = await requestReview(t, tokens.alice, documentId, { reviewers: [ids.nina] });
    expectError(unable, 400, 'validation_failed');
    expect(unable.body.details).toContain(ids.nina);
    expectError(await submit(documentId, { dueAt: dueIn(-1) }), 400, 'validation_failed');
    expectError(await requestReview(t, tokens.alice, documentId, { reviewers: [] }), 400, 'validation_failed');
    expectError(await requestReview(t, tokens.bob, documentId, { reviewers: [ids.erin] }), 403, 'forbidden');
    expectError(await requestReview(t, tokens.nina, documentId, { reviewers: [ids.erin] }), 404, 'document_not_found');
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('draft');
  });

  it('publishes once every reviewer approved; each answers once; others may not answer', async () => {
    const documentId = await draft('approved by all');
    expect((await submit(documentId)).status).toBe(200);
    const first = await decide(t, tokens.bob, documentId, 'approve', 'Fine by me.');
    expect(first.status).toBe(200);
    expect(first.body.review.state).toBe('open');
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('in_review');
    expectError(await decide(t, tokens.bob, documentId, 'approve'), 409, 'conflict');
    expectError(await decide(t, tokens.alice, documentId, 'approve'), 403, 'forbidden');
    const last = await decide(t, tokens.erin, documentId, 'approve');
    expect(last.status).toBe(200);
    expect(last.body.review).toMatchObject({ state: 'approved', closedAt: expect.any(String) });
    expect(last.body.review.reviewers).toEqual([
      expect.objectContaining({ username: 'bob', decision: 'approve', comment: 'Fine by me.' }),
      expect.objectContaining({ username: 'erin', decision: 'approve', comment: null }),
    ]);
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('published');
    expect(await reviewEvents(t, documentId)).toEqual([
      'review.decided → alice',
      'review.decided → alice',
      'review.requested → bob',
      'review.requested → erin',
    ]);
    expectError(await decide(t, tokens.erin, documentId, 'reject'), 404, 'review_not_found');
    const shown = await request(t.url)
      .get(`/api/documents/${documentId}/review`)
      .set('authorization', `Bearer ${tokens.bob}`);
    expect(shown.body.review.state).toBe('approved');
  });

  it('returns the document to draft on one rejection', async () => {
    const documentId = await draft('rejected');
    expect((await submit(documentId)).status).toBe(200);
    const rejected = await decide(t, tokens.erin, documentId, 'reject', 'Totals are wrong.');
    expect(rejected.body.review.state).toBe('rejected');
    expect(await documentStatus(t, tokens.alice, documentId)).toBe('draft');
    expectError(await decide(t, tokens.bob, documentId, 'approve'), 404, 'review_not_found');
    // A new round may start from draft.
    expect((await submit(documentId)).status).toBe(200);
  });

  it('lists what awaits the caller, due first, page by page', async () => {
    const soon = await draft('due soon');
    const later = await draft('due later');
    const undated = await draft('no date');
    expect((await submit(later, { dueAt: dueIn(5 * DAY) })).status).toBe(200);
    expect((await submit(undated)).status).toBe(200);
    expect((await submit(soon, { dueAt: dueIn(2 * HOUR) })).status).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await assigned('bob', `&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.reviews.map((review: { documentTitle: string }) => review.documentTitle));
      cursor = page.body.nextCursor;
    } while (cursor);
    const mine = seen.filter((title) => ['due soon', 'due later', 'no date'].includes(title));
    expect(mine).toEqual(['due soon', 'due later', 'no date']);
    // Dated reviews come before every undated one.
    expect(seen.indexOf('due later')).toBeLessThan(seen.indexOf('no date'));
    expect((await assigned('nina')).body.reviews).toEqual([]);
    expectError(
      await request(t.url).get('/api/reviews?assignedTo=bob').set('authorization', `Bearer ${tokens.bob}`),
      400,
      'validation_failed',
    );
    // Answered reviews move to state=closed.
    expect((await decide(t, tokens.bob, soon, 'approve')).status).toBe(200);
    const open = (await assigned('bob')).body.reviews.map((review: { documentId: string }) => review.documentId);
    const closed = (await assigned('bob', '&state=closed&limit=100')).body.reviews;
    expect(open).not.toContain(soon);
    expect(closed).toContainEqual(expect.objectContaining({ documentId: soon, myDecision: 'approve' }));
  });

  it('sends the reminder a day before dueAt and the overdue notice at it, each once', async () => {
    const documentId = await draft('reminded');
    expect((await submit(documentId, { dueAt: dueIn(3 * DAY) })).status).toBe(200);
    expect((await decide(t, tokens.bob, documentId, 'approve')).status).toBe(200);
    const jobs = t.app.get(ClusterJobs);
    const notices = async () => (await reviewEvents(t, documentId)).filter((event) => /reminder|overdue/.test(event));

    await jobs.tick(REVIEW_NOTICES_JOB);
    expect(await notices()).toEqual([]);
    clock.advance(2 * DAY - 1);
    await jobs.tick(REVIEW_NOTICES_JOB);
    expect(await notices()).toEqual([]);
    clock.advance(1);
    await jobs.tick(REVIEW_NOTICES_JOB);
    await jobs.tick(REVIEW_NOTICES_JOB);
    // Only erin still owes an answer.
    expect(await notices()).toEqual(['review.reminder → erin']);
    clock.advance(DAY);
    await jobs.tick(REVIEW_NOTICES_JOB);
    clock.advance(HOUR);
    await jobs.tick(REVIEW_NOTICES_JOB);
    expect(await notices()).toEqual(['review.overdue → erin', 'review.reminder → erin']);
  });

  it('cancels the open review when the bare status route moves the document', async () => {
    const documentId = await draft('moved by hand');
    expect((await submit(documentId)).status).toBe(200);
    const moved = await request(t.url)
      .post(`/api/documents/${documentId}/status`)
      .set('authorization', `Bearer ${tokens.admin}`)
      .send({ status: 'draft' });
    expect(moved.status).toBe(200);
    const shown = await request(t.url)
      .get(`/api/documents/${documentId}/review`)
      .set('authorization', `Bearer ${tokens.alice}`);
    expect(shown.body.review.state).toBe('cancelled');
    expectError(await decide(t, tokens.bob, documentId, 'approve'), 404, 'review_not_found');
    // The bare route still submits without reviewers.
    const bare = await request(t.url)
      .post(`/api/documents/${documentId}/status`)
      .set('authorization', `Bearer ${tokens.alice}`)
      .send({ status: 'in_review' });
    expect(bare.status).toBe(200);
  });
});
