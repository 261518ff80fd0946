import { expect } from 'vitest';

/** The one error shape: `status`, `{ error: code, details: <a sentence> }` and nothing else. */
export function expectError(
  response: { status: number; body: unknown; text?: string },
  status: number,
  code: string,
): void {
  expect({ status: response.status, body: response.body }, response.text?.slice(0, 300)).toMatchObject({
    status,
    body: { error: code, details: expect.any(String) },
  });
  const body = response.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['details', 'error']);
  expect((body.details as string).length).toBeGreaterThan(0);
}
