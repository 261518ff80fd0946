// Document types over HTTP, on both databases: listed by any user, managed with documentTypes:manage.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentType } from '../../src/document-types/entities/document-type.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('document types on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, token = admin) => {
    const pending = request(t.url)[method](path).set('authorization', `Bearer ${token}`);
    return body ? pending.send(body) : pending;
  };
  const types = () => t.dataSource.getRepository(DocumentType);

  it('any authenticated user lists them: {documentTypes: [{id, name, description}]}', async () => {
    const response = await call('get', '/api/document-types', undefined, await t.login('bob'));
    expect(response.status).toBe(200);
    expect(response.body.documentTypes).toEqual([
      { id: expect.any(String), name: 'Contract', description: '' },
      { id: expect.any(String), name: 'Specification', description: '' },
    ]);
  });

  it('creates (201 + Location), changes and deletes an unused type; stores the name key', async () => {
    const created = await call('post', '/api/document-types', { name: 'Invoice', description: 'Supplier invoices' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/document-types/${created.body.documentType.id}`);
    const id = created.body.documentType.id;
    expect((await types().findOneByOrFail({ id })).nameKey).toBe('invoice');
    const changed = await call('patch', `/api/document-types/${id}`, { description: 'Line 1\nLine 2' });
    expect(changed.body.documentType).toEqual({ id, name: 'Invoice', description: 'Line 1\nLine 2' });
    const renamed = await call('patch', `/api/document-types/${id}`, { name: 'ＩNVOICES' });
    expect(renamed.body.documentType.name).toBe('ＩNVOICES');
    expect((await types().findOneByOrFail({ id })).nameKey).toBe('invoices');
    expect((await call('delete', `/api/document-types/${id}`)).status).toBe(204);
    expect((await call('delete', `/api/document-types/${id}`)).body.error).toBe('document_type_not_found');
  });

  it('names are unique ignoring case and Unicode form: 409 conflict', async () => {
    const before = await types().count();
    const clash = await call('post', '/api/document-types', { name: 'CONTRACT', description: '' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toBe('conflict');
    const memo = await call('post', '/api/document-types', { name: 'Memo', description: '' });
    const rename = await call('patch', `/api/document-types/${memo.body.documentType.id}`, { name: 'specification' });
    expect(rename.status).toBe(409);
    expect(await types().count()).toBe(before + 1);
  });

  it('a type documents use cannot be deleted: 409 document_type_in_use', async () => {
    const contract = await types().findOneByOrFail({ name: 'Contract' });
    const response = await call('delete', `/api/document-types/${contract.id}`);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'document_type_in_use',
      details: expect.stringMatching(/Contract.*4 document/),
    });
    expect(await types().findOneBy({ id: contract.id })).not.toBeNull();
  });

  it.each([
    [{ name: 'X' }, /description/],
    [{ name: ' X', description: '' }, /name must not start or end with whitespace/],
    [{ name: 'x'.repeat(101), description: '' }, /name must be shorter than or equal to 100/],
    [{ name: 'X', description: 'a\u202eb' }, /description must not contain control characters/],
    [{ name: 'X', description: '', id: randomUUID() }, /property id should not exist/],
  ])('refuses a bad body with 400 %#', async (body, details) => {
    const response = await call('post', '/api/document-types', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'validation_failed', details: expect.stringMatching(details) });
  });

  it('PATCH refuses null and an unknown id; editors may not manage types', async () => {
    const contract = await types().findOneByOrFail({ name: 'Contract' });
    expect((await call('patch', `/api/document-types/${contract.id}`, { name: null })).status).toBe(400);
    expect((await call('patch', `/api/document-types/${randomUUID()}`, { name: 'Y' })).status).toBe(404);
    const erin = await t.login('erin');
    expect((await call('post', '/api/document-types', { name: 'Z', description: '' }, erin)).status).toBe(403);
  });
});
