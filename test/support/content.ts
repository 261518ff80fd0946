import { setTimeout as delay } from 'node:timers/promises';
import type { TestApp } from './test-app.js';
import { sendMultipart, type Part } from './uploads.js';

const SETTLED = new Set(['indexed', 'failed', 'unsupported', 'too_large']);
/** Polls of a document's content state before a test gives up (each 250 ms apart: OCR takes seconds). */
const POLLS = 240;

export interface ContentState {
  status: string;
  pages: number | null;
  characters: number | null;
  extractedAt: string | null;
  error: string | null;
}

/** Creates a document from `bytes` in `projectId` and answers it. */
export async function uploadDocument(
  t: TestApp,
  token: string,
  projectId: string,
  fileName: string,
  bytes: Buffer | string,
  type?: string,
): Promise<Record<string, any>> {
  const parts: Part[] = [
    { name: 'projectId', value: projectId },
    { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
    { name: 'file', fileName, bytes, type },
  ];
  const response = await sendMultipart(`${t.url}/api/documents`, token, parts);
  if (response.status !== 201)
    throw new Error(`upload ${fileName}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.document;
}

/**
 * Waits, by polling GET /api/documents/{id}, until the current version (`version`, if given) has
 * a settled content state; answers the document.
 */
export async function settledDocument(
  t: TestApp,
  token: string,
  documentId: string,
  version?: number,
): Promise<Record<string, any> & { content: ContentState }> {
  for (let poll = 0; poll < POLLS; poll++) {
    const response = await fetch(`${t.url}/api/documents/${documentId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { document } = (await response.json()) as { document: Record<string, any> & { content: ContentState } };
    if (SETTLED.has(document.content.status) && (version === undefined || document.currentVersion === version)) {
      return document;
    }
    await delay(250);
  }
  throw new Error(`document ${documentId} was not read after ${POLLS} polls`);
}

/** GET /api/documents?q=… as `token`: the results' ids and matches, and the total. */
export async function search(t: TestApp, token: string, q: string) {
  const response = await fetch(`${t.url}/api/documents?q=${encodeURIComponent(q)}&limit=100`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as {
    documents: { id: string; matches: { field: string; snippet: string }[] }[];
    pagination: { total: number };
  };
  return { status: response.status, documents: body.documents, total: body.pagination?.total };
}
