import request from 'supertest';
import type { TestApp } from './test-app.js';

/** A document of alice's with a stored file, in the first seeded project. */
export async function aliceFileDocument(t: TestApp): Promise<string> {
  const [row] = await t.dataSource.query<{ id: string }[]>(
    'SELECT id FROM documents WHERE uploadedBy = ? AND sha256 IS NOT NULL AND deletedAt IS NULL AND projectId = ? ORDER BY id LIMIT 1',
    [t.user('alice').id, t.seed.projects[0].id],
  );
  return row.id;
}

/** POST /api/documents/{id}/shares as the holder of `token`. */
export function createShare(t: TestApp, token: string, documentId: string, body: object) {
  return request(t.url).post(`/api/documents/${documentId}/shares`).set('authorization', `Bearer ${token}`).send(body);
}

/** GET /s/{token} with no login; `headers` as given. */
export function openShare(t: TestApp, shareToken: string, headers: Record<string, string> = {}, query = '') {
  return request(t.url)
    .get(`/s/${shareToken}${query}`)
    .set(headers)
    .buffer(true)
    .parse((response, callback) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => callback(null, Buffer.concat(chunks)));
    });
}

/** The JSON error a share link answered (its body parsed), for expectError. */
export function errorOf(response: { status: number; body: Buffer }) {
  return { status: response.status, body: JSON.parse(response.body.toString('utf8')) as unknown };
}
