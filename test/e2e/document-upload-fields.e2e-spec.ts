import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document } from '../../src/documents/entities/document.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart, type Part } from '../support/uploads.js';

/** The text fields of a multipart create, read as a JSON body would be (issue 30 #10, #16a). */
describe.each(databasesUnderTest())('POST /api/documents form fields on %s', (kind) => {
  let t: TestApp;
  let token: string;

  const create = (fields: Part[]) =>
    sendMultipart(`${t.url}/api/documents`, token, [
      ...fields,
      { name: 'file', fileName: 'notes.txt', bytes: 'notes\n', type: 'text/plain' },
    ]);
  const basics = (): Part[] => [
    { name: 'projectId', value: t.seed.projects[0].id },
    { name: 'documentTypeId', value: t.seed.documentTypes[0].id },
  ];

  beforeAll(async () => {
    t = await createTestApp(kind);
    token = await t.login('alice');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('accepts upper-case UUIDs and stores them lower-case, as JSON bodies and paths do', async () => {
    const projectId = t.seed.projects[0].id;
    const typeId = t.seed.documentTypes[0].id;
    const response = await create([
      { name: 'projectId', value: projectId.toUpperCase() },
      { name: 'documentTypeId', value: typeId.toUpperCase() },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.document).toMatchObject({ projectId, documentTypeId: typeId });
    const row = await t.dataSource.getRepository(Document).findOneByOrFail({ id: response.body.document.id });
    expect({ projectId: row.projectId, documentTypeId: row.documentTypeId }).toEqual({
      projectId,
      documentTypeId: typeId,
    });
  });

  it('splits a comma-separated tags part (as Swagger UI sends it), trimming and dropping empty ones', async () => {
    const response = await create([...basics(), { name: 'tags', value: 'contract, legal,,  ' }]);
    expect(response.status).toBe(201);
    expect(response.body.document.tags).toEqual(['contract', 'legal']);
  });

  it('still takes one part per tag, and both forms together', async () => {
    const response = await create([
      ...basics(),
      { name: 'tags', value: 'contract' },
      { name: 'tags', value: 'legal,draft' },
      { name: 'tags', value: 'contract' },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.document.tags).toEqual(['contract', 'legal', 'draft']);
  });

  it('refuses a tag over 64 characters inside a comma-separated part', async () => {
    const response = await create([...basics(), { name: 'tags', value: `ok,${'x'.repeat(65)}` }]);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation_failed');
  });
});
