// The document list by custom fields: equality and number/date ranges, sort=field.<key> with keyset
// cursor pages, totals (counted up to COUNT_CAP, totalIsExact), and plans that read the typed
// values' (fieldId, value, documentId) index as a range on both databases.
import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFieldValue } from '../../src/custom-fields/entities/document-field-value.entity.js';
import { DocumentCounts } from '../../src/documents/document-counts.repository.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { documentListStatement, type DocumentListFilters } from '../../src/documents/document-search.repository.js';
import { databasesUnderTest } from '../support/databases.js';
import { expectError } from '../support/expect-error.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sendMultipart } from '../support/uploads.js';

const BULK = 1200;

describe.each(databasesUnderTest())('the document list by custom fields on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let typeA: string;
  const field: Record<string, string> = {};
  /** The uploaded documents with the values they were given. */
  const uploaded: { id: string; title: string; fields: Record<string, unknown> }[] = [];

  async function get(path: string, token = admin): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  }

  const list = (query: string, limit = 100) => get(`/api/documents?documentTypeId=${typeA}&limit=${limit}&${query}`);
  const titles = (body: { documents: { title: string }[] }) => body.documents.map((document) => document.title);

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.login('admin');
    typeA = t.seed.documentTypes[0].id;
    for (const [key, type, extra] of [
      ['amount', 'number', {}],
      ['signedOn', 'date', {}],
      ['region', 'select', { options: ['EU', 'US'] }],
      ['urgent', 'boolean', {}],
    ] as const) {
      const response = await fetch(`${t.url}/api/document-types/${typeA}/fields`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key, label: key, type, required: false, ...extra }),
      });
      field[key] = ((await response.json()) as { field: { id: string } }).field.id;
    }
    const values: Record<string, unknown>[] = [
      { amount: 5, signedOn: '2026-01-10', region: 'EU', urgent: true },
      { amount: 20, signedOn: '2026-03-01', region: 'US', urgent: false },
      { amount: 20, signedOn: '2026-02-15', region: 'EU' },
      { amount: 35.5, signedOn: '2025-12-31', urgent: true },
      { amount: -2, region: 'US' },
      {},
    ];
    for (const [index, fields] of values.entries()) {
      const created = await sendMultipart(`${t.url}/api/documents`, admin, [
        { name: 'title', value: `doc ${index}` },
        { name: 'projectId', value: t.seed.projects[index % 2].id },
        { name: 'documentTypeId', value: typeA },
        { name: 'fields', value: JSON.stringify(fields) },
        { name: 'file', fileName: 'f.txt', bytes: `doc ${index}`, type: 'text/plain' },
      ]);
      if (created.status !== 201) throw new Error(`upload answered ${created.status}`);
      uploaded.push({ id: created.body.document.id, title: `doc ${index}`, fields });
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('filters by equality on select, boolean, number and date', async () => {
    expect(titles((await list('field.region=EU')).body).sort()).toEqual(['doc 0', 'doc 2']);
    expect(titles((await list('field.urgent=true')).body).sort()).toEqual(['doc 0', 'doc 3']);
    expect(titles((await list('field.urgent=false')).body)).toEqual(['doc 1']);
    expect(titles((await list('field.amount=20')).body).sort()).toEqual(['doc 1', 'doc 2']);
    expect(titles((await list('field.signedOn=2026-03-01')).body)).toEqual(['doc 1']);
    expect(titles((await list('field.region=EU&field.urgent=true')).body)).toEqual(['doc 0']);
    // With a search: the field terms join the matches (the MariaDB search's own statement too).
    const searched = await list('q=doc&field.region=EU');
    expect(titles(searched.body).sort()).toEqual(['doc 0', 'doc 2']);
    expect(searched.body.pagination).toMatchObject({ total: 2, totalIsExact: true });
  });

  it('filters number and date ranges, with an exact total below the cap', async () => {
    const numbers = await list('field.amount[gte]=5&field.amount[lte]=20');
    expect(titles(numbers.body).sort()).toEqual(['doc 0', 'doc 1', 'doc 2']);
    expect(numbers.body.pagination).toMatchObject({ total: 3, totalIsExact: true });
    const dates = await list('field.signedOn[gte]=2026-01-01&field.signedOn[lte]=2026-02-28');
    expect(titles(dates.body).sort()).toEqual(['doc 0', 'doc 2']);
    expect(titles((await list('field.amount[lte]=0')).body)).toEqual(['doc 4']);
  });

  it('sorts by a field in both directions over cursor pages, ties by id, documents without a value left out', async () => {
    const walk = async (sort: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: any } = await list(`sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`, 2);
        expect(page.status).toBe(200);
        expect(page.body.documents.length).toBeLessThanOrEqual(2);
        seen.push(...titles(page.body));
        cursor = page.body.pagination.nextCursor;
      } while (cursor);
      return seen;
    };
    const twenties = uploaded
      .filter((document) => document.fields.amount === 20)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((document) => document.title);
    const ascending = ['doc 4', 'doc 0', ...twenties, 'doc 3'];
    expect(await walk('field.amount')).toEqual(ascending);
    expect(await walk('-field.amount')).toEqual(ascending.toReversed());
    expect(await walk('field.signedOn')).toEqual(['doc 3', 'doc 0', 'doc 2', 'doc 1']);
    expect(await walk('-field.region')).toHaveLength(4);
    expect(titles((await list('sort=field.amount&field.region=EU')).body)).toEqual(['doc 0', 'doc 2']);
  });

  it('answers 400 for a bad field parameter or sort', async () => {
    const bad = async (path: string) => expectError(await get(path), 400, 'validation_failed');
    await bad('/api/documents?field.region=EU');
    await bad('/api/documents?sort=field.amount');
    await bad(`/api/documents?documentTypeId=${typeA}&field.nope=1`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.region[gte]=EU`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.amount=ten`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.signedOn[lte]=2026-13-01`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.amount[gt]=1`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.urgent=yes`);
    await bad(`/api/documents?documentTypeId=${typeA}&field.region=EU&field.region=US`);
    await bad(`/api/documents?documentTypeId=${typeA}&sort=field.amount&q=doc`);
    await bad(`/api/documents?documentTypeId=${typeA}&sort=field.Bad-Key`);
  });

  /** What the plan says of the typed values' steps (aliases f0…, fs), whether any table is scanned, and whether the page's keys are sorted. */
  const planFacts = async (sql: string, parameters: unknown[], index: string) => {
    if (kind === 'mysql') {
      const plan = await t.dataSource.query<
        { table: string; type: string; key: string | null; Extra: string | null }[]
      >(`EXPLAIN ${sql}`, parameters);
      const values = plan.filter((step) => /^f(s|\d)$/.test(step.table));
      return {
        valuesRead: values.length > 0,
        onlyByIndex: values.every((step) => step.key === index && /^(range|ref)$/.test(step.type)),
        scans: plan.filter((step) => step.type === 'ALL' && !step.table.startsWith('<')).map((step) => step.table),
        sortedAfterward: values.some((step) => /filesort/.test(step.Extra ?? '')),
      };
    }
    const plan = (await t.dataSource.query<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, parameters)).map(
      (step) => step.detail,
    );
    const values = plan.filter((detail) => /^(SEARCH|SCAN) f(s|\d) /.test(detail));
    const keys = plan.slice(plan.indexOf('CO-ROUTINE p'), plan.indexOf('SCAN p'));
    return {
      valuesRead: values.length > 0,
      onlyByIndex: values.every((detail) =>
        new RegExp(`^SEARCH f(s|\\d) USING (COVERING )?INDEX ${index} `).test(detail),
      ),
      scans: plan.filter((detail) => /^SCAN (d|f)/.test(detail)),
      sortedAfterward: keys.some((detail) => detail.includes('TEMP B-TREE')),
    };
  };

  it('shows a member their own uploads outside their projects under a field filter and sort', async () => {
    const alice = await t.login('alice');
    const hermes = t.seed.projects[1].id;
    const created = await sendMultipart(`${t.url}/api/documents`, alice, [
      { name: 'title', value: 'alice elsewhere' },
      { name: 'projectId', value: hermes },
      { name: 'documentTypeId', value: typeA },
      { name: 'fields', value: JSON.stringify({ amount: 7, region: 'EU' }) },
      { name: 'file', fileName: 'f.txt', bytes: 'alice elsewhere', type: 'text/plain' },
    ]);
    expect(created.status).toBe(201);
    const membership = `${t.url}/api/projects/${hermes}/members/${t.user('alice').id}`;
    const removed = await fetch(membership, { method: 'DELETE', headers: { authorization: `Bearer ${admin}` } });
    expect(removed.status).toBe(204);
    try {
      const mine = (query: string) => get(`/api/documents?documentTypeId=${typeA}&${query}`, alice);
      const byRegion = await mine('field.region=EU');
      expect(byRegion.status).toBe(200);
      expect(titles(byRegion.body).sort()).toEqual(['alice elsewhere', 'doc 0', 'doc 2']);
      expect(byRegion.body.pagination).toMatchObject({ total: 3, totalIsExact: true });
      const byAmount = await mine('field.amount[gte]=5&field.amount[lte]=20&sort=field.amount');
      expect(byAmount.status).toBe(200);
      expect(titles(byAmount.body)).toEqual(['doc 0', 'alice elsewhere', 'doc 2']);
    } finally {
      await fetch(membership, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'contributor' }),
      });
    }
  });

  it('reads one index range of the typed values for a filter and for a sort', async () => {
    // Enough rows that a scan would cost more than the index range: every one has an amount, half a region.
    const base = Date.now() - 86_400_000;
    const documents = Array.from({ length: BULK }, (_, n) =>
      Object.assign(new Document(), {
        id: randomUUID(),
        projectId: t.seed.projects[n % 2].id,
        documentTypeId: typeA,
        title: `bulk ${n}`,
        description: '',
        fileName: 'bulk.pdf',
        fileSize: 1,
        mimeType: 'application/pdf',
        currentVersion: 1,
        status: 'draft',
        tags: [],
        metadata: {},
        fields: { amount: n, ...(n % 2 ? {} : { region: n % 20 ? 'EU' : 'US' }) },
        uploadedBy: t.seed.users[0].id,
        rowVersion: 1,
        createdAt: new Date(base + n * 1000),
        updatedAt: new Date(base + n * 1000),
        sha256: null,
        deletedAt: null,
        deletedBy: null,
      } satisfies Document),
    );
    const valueRows = documents.flatMap((document, n) => [
      { documentId: document.id, fieldId: field.amount, textValue: null, numberValue: n },
      ...(n % 2
        ? []
        : [{ documentId: document.id, fieldId: field.region, textValue: document.fields.region!, numberValue: null }]),
    ]);
    await t.dataSource.transaction(async (manager) => {
      for (let i = 0; i < documents.length; i += 100) {
        await manager.insert(Document, documents.slice(i, i + 100) as QueryDeepPartialEntity<Document>[]);
      }
      for (let i = 0; i < valueRows.length; i += 100) {
        await manager.insert(DocumentFieldValue, valueRows.slice(i, i + 100));
      }
      await new DocumentCounts().move(
        manager,
        documents.map((document) => ({ before: null, after: document })),
      );
    });
    await t.dataSource.query(
      kind === 'mysql' ? 'ANALYZE TABLE documents, document_field_values, document_counts, project_members' : 'ANALYZE',
    );
    const dialect = kind === 'mysql' ? 'mysql' : 'sqlite';
    const cases: [string, DocumentListFilters, string, string][] = [
      [
        'range filter',
        {
          documentTypeId: typeA,
          fields: { filters: [{ fieldId: field.amount, column: 'numberValue', op: '>=', value: BULK - 40 }] },
        },
        '-updatedAt',
        'IDX_document_field_values_number',
      ],
      [
        'sort',
        {
          documentTypeId: typeA,
          fields: { filters: [], sort: { fieldId: field.amount, column: 'numberValue', descending: false } },
        },
        'field.amount',
        'IDX_document_field_values_number',
      ],
      [
        'equality filter',
        {
          documentTypeId: typeA,
          fields: { filters: [{ fieldId: field.region, column: 'textValue', op: '=', value: 'US' }] },
        },
        '-updatedAt',
        'IDX_document_field_values_text',
      ],
    ];
    for (const [name, filters, sort, index] of cases) {
      const [sql, parameters] = documentListStatement(dialect, { all: true }, filters, sort as 'title', 21, 0)!;
      // A filter picks its few matches off the index, then sorts them; a field sort reads the index in order.
      expect(await planFacts(sql, parameters, index), name).toEqual({
        valuesRead: true,
        onlyByIndex: true,
        scans: [],
        sortedAfterward: name !== 'sort',
      });
    }
    // More matches than COUNT_CAP: the total is a lower bound, as for tags.
    const capped = await list('field.amount[gte]=0', 1);
    expect(capped.body.pagination).toMatchObject({ total: 1000, totalIsExact: false });
  });
});
