import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docx, docxBomb, scannedPdf, textPdf, textPng, unknownBinary, utf16le } from '../support/content-files.js';
import { search, settledDocument, uploadDocument } from '../support/content.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { addPlainUser, addProject, sendMultipart } from '../support/uploads.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Each file, the word only its content holds, and the state its extraction must reach. */
const FILES = [
  { name: 'contract.pdf', word: 'zephyrine', status: 'indexed', make: () => textPdf('The zephyrine clause applies') },
  { name: 'scan.pdf', word: 'quokkaberry', status: 'indexed', make: () => scannedPdf('Invoice quokkaberry total') },
  {
    name: 'letter.docx',
    word: 'wombatine',
    status: 'indexed',
    make: () => docx(['Deliveries of', 'wombatine parts']),
    type: DOCX,
  },
  { name: 'receipt.png', word: 'marmalite', status: 'indexed', make: () => textPng('Receipt marmalite paid') },
  {
    name: 'page.html',
    word: 'glimmerfax',
    status: 'indexed',
    make: () =>
      '<html><body><h1>Notes</h1><p>The glimmerfax &amp; co.</p><script>var hidden = "scriptword";</script></body></html>',
    type: 'text/html',
  },
  {
    name: 'table.csv',
    word: 'brontoquill',
    status: 'indexed',
    make: () => 'item,amount\nbrontoquill,12\n',
    type: 'text/csv',
  },
  { name: 'notes.txt', word: 'krümelwerk', status: 'indexed', make: () => utf16le('Meeting: krümelwerk budget\r\n') },
  { name: 'blank.txt', word: null, status: 'indexed', make: () => '   \n\n  ', type: 'text/plain' },
  { name: 'broken.pdf', word: null, status: 'failed', make: () => '%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage' },
  { name: 'bomb.docx', word: null, status: 'failed', make: () => docxBomb(8 * 1024 * 1024), type: DOCX },
  { name: 'blob.bin', word: null, status: 'unsupported', make: () => unknownBinary() },
] as const;

describe.each(databasesUnderTest())('content extraction and search on %s', (kind) => {
  let t: TestApp;
  let tokens: Record<string, string>;
  let projectId: string;
  const ids = new Map<string, string>();
  const pendingAtUpload: unknown[] = [];
  const get = (path: string, token: string) =>
    fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    t = await createTestApp(kind, { CONTENT_MAX_UNCOMPRESSED_BYTES: String(4 * 1024 * 1024), CONTENT_WORKERS: '2' });
    await addPlainUser(t, 'vera');
    await addPlainUser(t, 'nora');
    projectId = await addProject(t, 'Content', {
      [t.user('alice').id]: 'contributor',
      [await userId('vera')]: 'viewer',
    });
    tokens = {};
    for (const name of ['admin', 'alice', 'bob', 'vera', 'nora']) tokens[name] = await t.login(name);
    for (const file of FILES) {
      const document = await uploadDocument(
        t,
        tokens.alice,
        projectId,
        file.name,
        await file.make(),
        'type' in file ? file.type : undefined,
      );
      ids.set(file.name, document.id);
      pendingAtUpload.push(document.content);
    }
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  async function userId(username: string): Promise<string> {
    const [row] = await t.dataSource.query<{ id: string }[]>('SELECT id FROM users WHERE username = ?', [username]);
    return row.id;
  }

  it('reads every file to the state its format calls for', async () => {
    expect(pendingAtUpload).toEqual(
      FILES.map(() => ({ status: 'pending', pages: null, characters: null, extractedAt: null, error: null })),
    );
    const reached = [];
    for (const file of FILES) {
      const { content } = await settledDocument(t, tokens.alice, ids.get(file.name)!);
      reached.push({ name: file.name, status: content.status, error: typeof content.error });
    }
    expect(reached).toEqual(
      FILES.map((file) => ({
        name: file.name,
        status: file.status,
        error: file.status === 'indexed' ? 'object' : 'string',
      })),
    );
    const utf16 = await settledDocument(t, tokens.alice, ids.get('notes.txt')!);
    expect(utf16.mimeType).toBe('text/plain');
    expect((await settledDocument(t, tokens.alice, ids.get('contract.pdf')!)).content).toMatchObject({
      pages: 1,
      characters: expect.any(Number),
      extractedAt: expect.any(String),
      error: null,
    });
    expect((await settledDocument(t, tokens.alice, ids.get('blank.txt')!)).content.characters).toBe(0);
    expect((await settledDocument(t, tokens.alice, ids.get('bomb.docx')!)).content.error).toContain(
      'CONTENT_MAX_UNCOMPRESSED_BYTES',
    );
  }, 180_000);

  it('finds each document by a word only its content holds, with a marked snippet', async () => {
    for (const file of FILES) {
      if (!file.word) continue;
      const found = await search(t, tokens.alice, file.word);
      expect({ name: file.name, ids: found.documents.map((document) => document.id), total: found.total }).toEqual({
        name: file.name,
        ids: [ids.get(file.name)],
        total: 1,
      });
      const [match] = found.documents[0].matches;
      expect(match.field).toBe('content');
      expect(match.snippet.toLowerCase()).toContain(`<mark>${file.word}</mark>`);
    }
    // Script contents are not text.
    expect((await search(t, tokens.alice, 'scriptword')).total).toBe(0);
    // A phrase in double quotes matches its words in that order.
    expect((await search(t, tokens.alice, '"wombatine parts"')).documents.map((document) => document.id)).toEqual([
      ids.get('letter.docx'),
    ]);
    expect((await search(t, tokens.alice, '"parts wombatine"')).total).toBe(0);
    // A word of a title is matched as before.
    const byTitle = await search(t, tokens.alice, 'contract');
    expect(byTitle.documents.find((document) => document.id === ids.get('contract.pdf'))?.matches[0].field).toBe(
      'title',
    );
  });

  it('keeps content hits to readers and out of the trash', async () => {
    expect((await search(t, tokens.vera, 'zephyrine')).total).toBe(1);
    expect((await search(t, tokens.nora, 'zephyrine')).total).toBe(0);
    expect((await search(t, tokens.bob, 'zephyrine')).total).toBe(0);
    expect((await search(t, tokens.admin, 'zephyrine')).total).toBe(1);
    const trashed = ids.get('table.csv')!;
    const deleted = await fetch(`${t.url}/api/documents/${trashed}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(deleted.status).toBe(204);
    expect((await search(t, tokens.alice, 'brontoquill')).total).toBe(0);
  });

  it('serves the text to readers only', async () => {
    const id = ids.get('letter.docx')!;
    const response = await get(`/api/documents/${id}/text`, tokens.vera);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe('Deliveries of\n\nwombatine parts');
    const stranger = await get(`/api/documents/${id}/text`, tokens.nora);
    expectError({ status: stranger.status, body: await stranger.json() }, 404, 'document_not_found');
    const failed = await get(`/api/documents/${ids.get('broken.pdf')}/text`, tokens.alice);
    expectError({ status: failed.status, body: await failed.json() }, 404, 'content_not_available');
    const missing = await get(`/api/documents/${id}/text?version=9`, tokens.alice);
    expectError({ status: missing.status, body: await missing.json() }, 404, 'version_not_found');
  });

  it('draws previews of PDFs and images for readers only', async () => {
    const side = async (response: Response) => {
      const { width, height } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      return Math.max(width, height);
    };
    const small = await get(`/api/documents/${ids.get('receipt.png')}/preview?size=small`, tokens.vera);
    expect(small.status).toBe(200);
    expect(small.headers.get('content-type')).toBe('image/png');
    expect(small.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = small.headers.get('etag')!;
    expect(await side(small)).toBeLessThanOrEqual(256);
    const again = await fetch(`${t.url}/api/documents/${ids.get('receipt.png')}/preview`, {
      headers: { authorization: `Bearer ${tokens.vera}`, 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    const large = await get(`/api/documents/${ids.get('scan.pdf')}/preview?size=large`, tokens.alice);
    expect(large.status).toBe(200);
    const largeSide = await side(large);
    expect(largeSide).toBeGreaterThan(256);
    expect(largeSide).toBeLessThanOrEqual(1024);
    const none = await get(`/api/documents/${ids.get('page.html')}/preview`, tokens.alice);
    expectError({ status: none.status, body: await none.json() }, 404, 'preview_not_available');
    const stranger = await get(`/api/documents/${ids.get('receipt.png')}/preview`, tokens.nora);
    expectError({ status: stranger.status, body: await stranger.json() }, 404, 'document_not_found');
  });

  it('replaces the old text in search when a version is added', async () => {
    const id = ids.get('contract.pdf')!;
    const added = await sendMultipart(`${t.url}/api/documents/${id}/versions`, tokens.alice, [
      { name: 'file', fileName: 'contract-v2.pdf', bytes: textPdf('The quillomantic clause replaces it') },
    ]);
    expect(added.status).toBe(201);
    expect(added.body.document.content.status).toBe('pending');
    expect((await settledDocument(t, tokens.alice, id, 2)).content.status).toBe('indexed');
    expect((await search(t, tokens.alice, 'quillomantic')).documents.map((document) => document.id)).toEqual([id]);
    expect((await search(t, tokens.alice, 'zephyrine')).total).toBe(0);
    const old = await get(`/api/documents/${id}/text?version=1`, tokens.alice);
    expect(await old.text()).toContain('zephyrine');
  });

  it('counts and re-queues for administrators', async () => {
    const counts = await get('/api/admin/content', tokens.admin);
    expect(counts.status).toBe(200);
    const { counts: byStatus } = (await counts.json()) as { counts: Record<string, number> };
    expect(byStatus).toMatchObject({ failed: 2, unsupported: 1 });
    const refused = await get('/api/admin/content', tokens.alice);
    expectError({ status: refused.status, body: await refused.json() }, 403, 'forbidden');

    const reindex = await fetch(`${t.url}/api/admin/content/reindex`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'failed', projectId }),
    });
    expect(reindex.status).toBe(202);
    expect(await reindex.json()).toEqual({ queued: 2 });
    expect((await settledDocument(t, tokens.alice, ids.get('broken.pdf')!)).content.status).toBe('failed');
  });
});
