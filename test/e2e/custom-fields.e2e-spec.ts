// Typed custom fields per document type: definitions (documentTypes:manage), values checked by
// type on upload and update (400 naming the field, nothing written), a type change, history and
// the refused or forced delete of a field that documents hold values of.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const UNKNOWN = '0f0e0d0c-0b0a-4909-8807-060504030201';

describe.each(databasesUnderTest())('custom fields on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let alice: string;
  let typeA: string;
  let typeB: string;

  async function call(
    method: string,
    path: string,
    body?: unknown,
    token = admin,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  const define = (typeId: string, body: object, token = admin) =>
    call('POST', `/api/document-types/${typeId}/fields`, body, token);

  function upload(fields: unknown, typeId = typeA) {
    return sendMultipart(`${t.url}/api/documents`, admin, [
      { name: 'projectId', value: t.seed.projects[0].id },
      { name: 'documentTypeId', value: typeId },
      ...(fields === undefined
        ? []
        : [{ name: 'fields', value: typeof fields === 'string' ? fields : JSON.stringify(fields) }]),
      { name: 'file', fileName: 'contract.txt', bytes: 'contract', type: 'text/plain' },
    ]);
  }

  const valueRows = async () =>
    Number(
      (await t.dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM document_field_values'))[0].n,
    );
  const documentRows = async () =>
    Number((await t.dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM documents'))[0].n);

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
    alice = await t.login('alice');
    [typeA, typeB] = t.seed.documentTypes.map((type) => type.id);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('declares fields of every type, for documentTypes:manage only', async () => {
    expectError(
      await define(typeA, { key: 'amount', label: 'Amount', type: 'number', required: false }, alice),
      403,
      'forbidden',
    );
    const created = await define(typeA, {
      key: 'amount',
      label: 'Amount',
      type: 'number',
      required: true,
      min: 0,
      max: 1000,
    });
    expect(created.status).toBe(201);
    expect(created.body.field).toMatchObject({
      key: 'amount',
      type: 'number',
      required: true,
      min: 0,
      max: 1000,
      options: null,
    });
    for (const body of [
      { key: 'signedOn', label: 'Signed on', type: 'date', required: false },
      { key: 'confidential', label: 'Confidential', type: 'boolean', required: false },
      { key: 'region', label: 'Region', type: 'select', required: false, options: ['EU', 'US'] },
      { key: 'owner', label: 'Owner', type: 'user', required: false },
      { key: 'link', label: 'Link', type: 'url', required: false },
      { key: 'note', label: 'Note', type: 'text', required: false, max: 10 },
    ]) {
      expect((await define(typeA, body)).status).toBe(201);
    }
    expect((await define(typeB, { key: 'amount', label: 'Amount', type: 'text', required: false })).status).toBe(201);
    const list = await call('GET', `/api/document-types/${typeA}/fields`, undefined, alice);
    expect(list.status).toBe(200);
    expect(list.body.fields.map((field: { key: string }) => field.key)).toEqual([
      'amount',
      'signedOn',
      'confidential',
      'region',
      'owner',
      'link',
      'note',
    ]);
    expectError(await call('GET', `/api/document-types/${UNKNOWN}/fields`), 404, 'document_type_not_found');
  });

  it('refuses bad definitions', async () => {
    const base = { label: 'X', required: false };
    expectError(await define(typeA, { ...base, key: 'amount', type: 'number' }), 409, 'conflict');
    expectError(await define(typeA, { ...base, key: 'Bad-Key', type: 'text' }), 400, 'validation_failed');
    expectError(await define(typeA, { ...base, key: 'kind', type: 'color' }), 400, 'validation_failed');
    expectError(await define(typeA, { ...base, key: 'kind', type: 'select' }), 400, 'validation_failed');
    expectError(await define(typeA, { ...base, key: 'kind', type: 'text', options: ['a'] }), 400, 'validation_failed');
    expectError(await define(typeA, { ...base, key: 'kind', type: 'date', min: 1 }), 400, 'validation_failed');
    expectError(
      await define(typeA, { ...base, key: 'kind', type: 'number', min: 5, max: 1 }),
      400,
      'validation_failed',
    );
    expectError(await define(UNKNOWN, { ...base, key: 'kind', type: 'text' }), 404, 'document_type_not_found');
  });

  it('changes label, required, options and bounds, never key or type', async () => {
    const path = `/api/document-types/${typeA}/fields/region`;
    expectError(await call('PATCH', path, { label: 'Region' }, alice), 403, 'forbidden');
    const changed = await call('PATCH', path, { label: 'Sales region', options: ['EU', 'US', 'APAC'] });
    expect(changed.status).toBe(200);
    expect(changed.body.field).toMatchObject({ label: 'Sales region', options: ['EU', 'US', 'APAC'] });
    expectError(await call('PATCH', path, { type: 'text' }), 400, 'validation_failed');
    expectError(await call('PATCH', path, { key: 'zone' }), 400, 'validation_failed');
    expectError(await call('PATCH', path, { options: null }), 400, 'validation_failed');
    expectError(
      await call('PATCH', `/api/document-types/${typeA}/fields/nope`, { label: 'x' }),
      404,
      'document_field_not_found',
    );
  });

  it('stores valid values of every type on upload and shows them in every answer', async () => {
    const bob = t.user('bob').id;
    const created = await upload({
      amount: 120.5,
      signedOn: '2026-09-30',
      confidential: true,
      region: 'EU',
      owner: bob.toUpperCase(),
      link: 'https://example.com/contract',
      note: 'short',
    });
    expect(created.status).toBe(201);
    const expected = {
      amount: 120.5,
      signedOn: '2026-09-30',
      confidential: true,
      region: 'EU',
      owner: bob,
      link: 'https://example.com/contract',
      note: 'short',
    };
    expect(created.body.document.fields).toEqual(expected);
    const id = created.body.document.id as string;
    expect((await call('GET', `/api/documents/${id}`)).body.document.fields).toEqual(expected);
    const listed = await call('GET', `/api/documents?documentTypeId=${typeA}&limit=100`);
    expect(listed.body.documents.find((document: { id: string }) => document.id === id).fields).toEqual(expected);
    expect(await valueRows()).toBe(7);
  });

  it('refuses each kind of bad value with 400 naming the field, and writes nothing', async () => {
    await t.dataSource.query("UPDATE users SET isActive = 0 WHERE username = 'bob'");
    const ok = { amount: 1 };
    const cases: [object, string][] = [
      [{ ...ok, unknown: 1 }, 'fields.unknown'],
      [{ amount: '12' }, 'fields.amount'],
      [{ amount: 1001 }, 'fields.amount'],
      [{ amount: -1 }, 'fields.amount'],
      [{}, 'fields.amount'],
      [{ ...ok, signedOn: '2026-02-30' }, 'fields.signedOn'],
      [{ ...ok, confidential: 'yes' }, 'fields.confidential'],
      [{ ...ok, region: 'Mars' }, 'fields.region'],
      [{ ...ok, owner: UNKNOWN }, 'fields.owner'],
      [{ ...ok, owner: t.user('bob').id }, 'fields.owner'],
      [{ ...ok, link: 'ftp://example.com/x' }, 'fields.link'],
      [{ ...ok, link: 'not a url' }, 'fields.link'],
      [{ ...ok, note: 'much too long' }, 'fields.note'],
    ];
    const before = [await documentRows(), await valueRows()];
    for (const [fields, named] of cases) {
      const answer = await upload(fields);
      expectError(answer, 400, 'validation_failed');
      expect(answer.body.details).toContain(named);
    }
    expectError(await upload('{not json'), 400, 'validation_failed');
    expect([await documentRows(), await valueRows()]).toEqual(before);
    await t.dataSource.query("UPDATE users SET isActive = 1 WHERE username = 'bob'");
  });

  it('merges values on PUT, null removes one, bad values change nothing, history records them', async () => {
    const id = (await upload({ amount: 10, region: 'US' })).body.document.id as string;
    const put = (body: object) => call('PUT', `/api/documents/${id}`, body);
    const updated = await put({ fields: { amount: 20, region: null, signedOn: '2026-01-02' } });
    expect(updated.status).toBe(200);
    expect(updated.body.document.fields).toEqual({ amount: 20, signedOn: '2026-01-02' });
    const shown = async () => {
      const { title, fields, updatedAt } = (await call('GET', `/api/documents/${id}`)).body.document;
      return { title, fields, updatedAt };
    };
    const stale = await shown();
    const bad = await put({ title: 'Renamed', fields: { amount: 'x' } });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.details).toContain('fields.amount');
    expectError(await put({ fields: { amount: null } }), 400, 'validation_failed');
    expect(await shown()).toEqual(stale);
    const rows = await t.dataSource.query<{ textValue: string | null; numberValue: number | string | null }[]>(
      'SELECT textValue, numberValue FROM document_field_values WHERE documentId = ? ORDER BY textValue',
      [id],
    );
    expect(rows.map((row) => [row.textValue, row.numberValue === null ? null : Number(row.numberValue)])).toEqual([
      [null, 20],
      ['2026-01-02', null],
    ]);
    const history = (await call('GET', `/api/documents/${id}/history`)).body.history;
    expect(history[0].changes.fields).toEqual({ from: { amount: 10, region: 'US' }, to: updated.body.document.fields });
  });

  it('re-checks the values when the type changes: keys of the old type are dropped, required ones needed', async () => {
    await define(typeB, { key: 'region', label: 'Region', type: 'select', required: true, options: ['north'] });
    const id = (await upload({ amount: 10, region: 'EU', note: 'kept?' })).body.document.id as string;
    const put = (body: object) => call('PUT', `/api/documents/${id}`, body);
    const refused = await put({ documentTypeId: typeB });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.details).toContain('fields.amount');
    expect((await put({ documentTypeId: typeB, fields: { amount: 'ten' } })).body.details).toContain('fields.region');
    const moved = await put({ documentTypeId: typeB, fields: { amount: 'ten', region: 'north' } });
    expect(moved.status).toBe(200);
    expect(moved.body.document).toMatchObject({ documentTypeId: typeB, fields: { amount: 'ten', region: 'north' } });
    expectError(await put({ documentTypeId: UNKNOWN }), 400, 'validation_failed');
    const rows = await t.dataSource.query<{ fieldId: string }[]>(
      'SELECT fieldId FROM document_field_values WHERE documentId = ?',
      [id],
    );
    expect(rows).toHaveLength(2);
  });

  it('refuses to delete a field documents hold values of, unless forced', async () => {
    const path = `/api/document-types/${typeA}/fields/signedOn`;
    const holder = (await upload({ amount: 3, signedOn: '2026-05-05' })).body.document;
    expectError(await call('DELETE', path, undefined, alice), 403, 'forbidden');
    expectError(await call('DELETE', path), 409, 'document_field_in_use');
    expect((await call('DELETE', `${path}?force=true`)).status).toBe(204);
    const after = (await call('GET', `/api/documents/${holder.id}`)).body.document;
    expect(after.fields).toEqual({ amount: 3 });
    expectError(await call('DELETE', path), 404, 'document_field_not_found');
    await define(typeA, { key: 'spare', label: 'Spare', type: 'text', required: false });
    expect((await call('DELETE', `/api/document-types/${typeA}/fields/spare`)).status).toBe(204);
  });

  it('takes the values with a purged document', async () => {
    const id = (await upload({ amount: 7 })).body.document.id as string;
    expect((await call('DELETE', `/api/documents/${id}`)).status).toBe(204);
    const held = await t.dataSource.query('SELECT 1 FROM document_field_values WHERE documentId = ?', [id]);
    expect(held).toHaveLength(1);
    expect((await call('DELETE', `/api/documents/${id}?permanent=true`)).status).toBe(204);
    expect(await t.dataSource.query('SELECT 1 FROM document_field_values WHERE documentId = ?', [id])).toHaveLength(0);
  });
});
