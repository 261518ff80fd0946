// What only the S3 driver has (issue 31): multipart uploads of large files, their cleanup on
// refusal, temporary objects cleaned by owner or age, and presigned downloads. The shared
// behaviour runs in the document file suites on both drivers.
import { createHash, randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileStore, TEMPORARY_FILE_MAX_AGE_MS } from '../../src/storage/file-store.js';
import { S3FileStore, SINGLE_PUT_MAX_BYTES } from '../../src/storage/s3-file-store.js';
import { storageSetupsUnderTest } from '../support/object-storage.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart, type Part } from '../support/uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const MIB = 1024 * 1024;
const s3Setups = storageSetupsUnderTest().filter(({ driver }) => driver === 's3');

describe.each(s3Setups)('the S3 driver on $kind', ({ kind }) => {
  let t: TestApp;
  let token: string;

  const upload = (bytes: Buffer, fileName = 'large.bin') => {
    const parts: Part[] = [
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName, bytes },
    ];
    return sendMultipart(`${t.url}/api/documents`, token, parts);
  };
  const content = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/api/documents/${id}/content`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
      redirect: 'manual',
    });
  const store = () => t.app.get<FileStore, S3FileStore>(FileStore);

  beforeAll(async () => {
    t = await createTestApp(kind, { STORAGE_DRIVER: 's3', UPLOAD_MAX_BYTES: String(20 * MIB) });
    token = await t.login('admin');
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('stores a file of several parts (multipart upload), and serves it whole, by range and as 304', async () => {
    // Above SINGLE_PUT_MAX_BYTES (15 MiB), so it streams as parts to a temporary key and is copied.
    const bytes = randomBytes(SINGLE_PUT_MAX_BYTES + 2 * MIB + 123);
    const created = await upload(bytes);
    expect(created.status).toBe(201);
    const id = created.body.document.id as string;
    expect(created.body.document.sha256).toBe(sha256(bytes));
    // Buffer.equals: toEqual walks 17 MiB byte by byte (and diffs them on a mismatch).
    expect((await t.stored.read(sha256(bytes)))?.equals(bytes)).toBe(true);
    expect(await t.stored.temporary()).toEqual([]);

    const whole = await content(id);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const range = await content(id, { range: `bytes=${6 * MIB}-${6 * MIB + 9}` });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes ${6 * MIB}-${6 * MIB + 9}/${bytes.length}`);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(bytes.subarray(6 * MIB, 6 * MIB + 10));
    expect((await content(id, { 'if-none-match': `"${sha256(bytes)}"` })).status).toBe(304);
  });

  it('refuses a file over the limit after parts were sent (413), leaving no object and no multipart upload', async () => {
    const files = await t.stored.files();
    const response = await upload(randomBytes(20 * MIB + 1), 'too-large.bin');
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: 'payload_too_large' });
    expect(await t.stored.files()).toEqual(files);
    expect(await t.stored.temporary()).toEqual([]);
  });

  it("removes its own temporary objects at start-up and another instance's only once they are old", async () => {
    const put = (key: string) =>
      store().client.send(new PutObjectCommand({ Bucket: store().bucket, Key: key, Body: 'half an upload' }));
    const own = `tmp/${store().instanceId}/${'a'.repeat(32)}.tmp`;
    const other = `tmp/another-instance/${'b'.repeat(32)}.tmp`;
    await put(own);
    await put(other);

    await expect(store().cleanTemporaryFiles({ startingUp: true })).resolves.toBe(1);
    expect(await t.stored.temporary()).toEqual([other]);
    await expect(store().cleanTemporaryFiles()).resolves.toBe(0);

    const later = Date.now() + TEMPORARY_FILE_MAX_AGE_MS + 60_000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    await expect(store().cleanTemporaryFiles()).resolves.toBe(1);
    expect(await t.stored.temporary()).toEqual([]);
  });
});

describe.each(s3Setups)('presigned downloads on $kind', ({ kind }) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { STORAGE_DRIVER: 's3', S3_PRESIGNED_DOWNLOADS: 'true' });
    token = await t.login('admin');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('redirects GET to a short-lived URL of the bytes, and still answers HEAD and 304 itself', async () => {
    const bytes = randomBytes(2048);
    const created = await sendMultipart(`${t.url}/api/documents`, token, [
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
      { name: 'file', fileName: 'report ü.bin', bytes },
    ]);
    expect(created.status).toBe(201);
    const url = `${t.url}/api/documents/${created.body.document.id}/content`;
    const authorization = `Bearer ${token}`;

    const redirect = await fetch(url, { headers: { authorization }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location).toMatch(/X-Amz-Expires=60/);
    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(Buffer.from(await direct.arrayBuffer())).toEqual(bytes);
    expect(direct.headers.get('content-disposition')).toContain('filename*=UTF-8');
    const ranged = await fetch(location, { headers: { range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(bytes.subarray(0, 10));

    const head = await fetch(url, { method: 'HEAD', headers: { authorization } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('2048');
    const notModified = await fetch(url, { headers: { authorization, 'if-none-match': `"${sha256(bytes)}"` } });
    expect(notModified.status).toBe(304);
  });
});
