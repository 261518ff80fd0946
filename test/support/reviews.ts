import request from 'supertest';
import type { TestApp } from './test-app.js';

/** The review events recorded for a document (outbox), as "type → recipient username", oldest first. */
export async function reviewEvents(t: TestApp, documentId: string): Promise<string[]> {
  const rows = await t.dataSource.query<{ type: string; subjectUserId: string }[]>(
    "SELECT type, subjectUserId FROM outbox_events WHERE documentId = ? AND type LIKE 'review.%' ORDER BY createdAt, id",
    [documentId],
  );
  const names = new Map(t.seed.users.map((user) => [user.id, user.username]));
  return rows.map((row) => `${row.type} → ${names.get(row.subjectUserId) ?? row.subjectUserId}`).sort();
}

/** POST /api/documents/{id}/review as the holder of `token`. */
export function requestReview(t: TestApp, token: string, documentId: string, body: object) {
  return request(t.url).post(`/api/documents/${documentId}/review`).set('authorization', `Bearer ${token}`).send(body);
}

/** POST /api/documents/{id}/review/decision as the holder of `token`. */
export function decide(
  t: TestApp,
  token: string,
  documentId: string,
  decision: 'approve' | 'reject',
  comment?: string,
) {
  return request(t.url)
    .post(`/api/documents/${documentId}/review/decision`)
    .set('authorization', `Bearer ${token}`)
    .send(comment === undefined ? { decision } : { decision, comment });
}

export async function documentStatus(t: TestApp, token: string, documentId: string): Promise<string> {
  const response = await request(t.url).get(`/api/documents/${documentId}`).set('authorization', `Bearer ${token}`);
  return response.body.document.status as string;
}
