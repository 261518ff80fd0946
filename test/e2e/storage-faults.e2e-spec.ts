// Storage faults behind the service's back (issue 30 #15): a stored file that went missing or was
// truncated answers file_unavailable on GET and HEAD alike, before any header of the file is sent.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(storageSetupsUnderTest())('stored file faults on $kind, $driver driver', ({ kind, driver }) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { STORAGE_DRIVER: driver });
    token = await t.login('admin');
  });

  afterAll(async () => {
    await t?.close();
  });

  async function documentWith(bytes: Buffer): Promise<string> {
    const created = await sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'f.bin', bytes },
    ]);
    expect(created.status).toBe(201);
    return created.body.document.id as string;
  }

  async function content(id: string, method: 'GET' | 'HEAD') {
    const response = await fetch(`${t.url}/api/documents/${id}/content`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    return {
      status: response.status,
      disposition: response.headers.get('content-disposition'),
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    };
  }

  it('answers 500 file_unavailable on GET and HEAD when the file is missing', async () => {
    const bytes = randomBytes(256);
    const id = await documentWith(bytes);
    await t.stored.remove(sha256(bytes));

    const got = await content(id, 'GET');
    expect(got).toMatchObject({ status: 500, disposition: null, body: { error: 'file_unavailable' } });
    expect((await content(id, 'HEAD')).status).toBe(500);
  });

  it('answers 500 file_unavailable instead of a cut download when the file is truncated', async () => {
    const bytes = randomBytes(4096);
    const id = await documentWith(bytes);
    await t.stored.truncate(sha256(bytes), 100);

    expect(await content(id, 'GET')).toMatchObject({ status: 500, body: { error: 'file_unavailable' } });
    expect((await content(id, 'HEAD')).status).toBe(500);
  });
});
