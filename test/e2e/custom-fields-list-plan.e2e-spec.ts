// A list filtered by custom fields reads its page documents-first (the type's documents in list
// order, each one's values probed) when the filter matches a good share of them, value-first when it
// is selective: the same documents, order, total and cursor pages either way, for a reader of
// everything and for a member of some projects with uploads outside them.
import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentFieldValue } from '../../src/custom-fields/entities/document-field-value.entity.js';
import type { FieldListTerms } from '../../src/documents/document-fields.js';
import { DocumentCounts } from '../../src/documents/document-counts.repository.js';
import {
  documentListStatement,
  DocumentSearchRepository,
  type DocumentListPosition,
  type DocumentVisibility,
} from '../../src/documents/document-search.repository.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { addProject, addUser } from '../support/document-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const COUNT = 600;
const LIMIT = 25;

describe.each(databasesUnderTest())('the plan of a list by custom fields on %s', (kind) => {
  let t: TestApp;
  let typeA: string;
  let projects: string[];
  let memberId: string;
  const tokens: Record<'reader' | 'member', string> = { reader: '', member: '' };
  const field: Record<'region' | 'amount', string> = { region: '', amount: '' };
  let documents: Document[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind);
    typeA = t.seed.documentTypes[0].id;
    tokens.reader = await t.login('admin');
    for (const [key, body] of [
      ['region', { type: 'select', options: ['EU', 'US'] }],
      ['amount', { type: 'number' }],
    ] as const) {
      const response = await fetch(`${t.url}/api/document-types/${typeA}/fields`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.reader}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key, label: key, required: false, ...body }),
      });
      field[key] = ((await response.json()) as { field: { id: string } }).field.id;
    }
    projects = [await addProject(t, 'Fields A'), await addProject(t, 'Fields B'), await addProject(t, 'Fields C')];
    memberId = await addUser(t, 'fieldviewer', { [projects[0]]: 'viewer', [projects[1]]: 'viewer' });
    tokens.member = await t.login('fieldviewer');
    // A quarter of another type; EU on every other one of type A, US on a few; updatedAt ties in pairs;
    // some trashed; some of the member's uploads in the project they are not a member of.
    const base = Date.now() - 86_400_000;
    documents = Array.from({ length: COUNT }, (_, n) => {
      const ofA = n % 4 !== 3;
      const region = !ofA ? undefined : n % 97 === 0 ? 'US' : n % 2 === 0 ? 'EU' : undefined;
      const at = new Date(base + Math.floor(n / 2) * 1000);
      return Object.assign(new Document(), {
        id: randomUUID(),
        projectId: projects[n % 3],
        documentTypeId: ofA ? typeA : t.seed.documentTypes[1].id,
        title: `fields ${n}`,
        description: '',
        fileName: 'fields.pdf',
        fileSize: 1,
        mimeType: 'application/pdf',
        currentVersion: 1,
        status: 'draft',
        tags: [],
        metadata: {},
        fields: ofA ? { amount: n, ...(region ? { region } : {}) } : {},
        uploadedBy: n % 3 === 2 && n % 5 === 0 ? memberId : t.seed.users[0].id,
        rowVersion: 1,
        createdAt: at,
        updatedAt: at,
        sha256: null,
        deletedAt: n % 50 === 1 ? at : null,
        deletedBy: n % 50 === 1 ? t.seed.users[0].id : null,
      } satisfies Document);
    });
    const values = documents.flatMap((document) =>
      document.documentTypeId !== typeA
        ? []
        : [
            { documentId: document.id, fieldId: field.amount, textValue: null, numberValue: document.fields!.amount },
            ...(document.fields!.region
              ? [
                  {
                    documentId: document.id,
                    fieldId: field.region,
                    textValue: document.fields!.region,
                    numberValue: null,
                  },
                ]
              : []),
          ],
    ) as DocumentFieldValue[];
    await t.dataSource.transaction(async (manager) => {
      // Copies: TypeORM's MariaDB insert writes other ids back into the objects it is given.
      for (let i = 0; i < documents.length; i += 100) {
        const batch = documents.slice(i, i + 100).map((document) => Object.assign(new Document(), document));
        await manager.insert(Document, batch as QueryDeepPartialEntity<Document>[]);
      }
      for (let i = 0; i < values.length; i += 100) await manager.insert(DocumentFieldValue, values.slice(i, i + 100));
      await new DocumentCounts().move(
        manager,
        documents.filter((document) => !document.deletedAt).map((document) => ({ before: null, after: document })),
      );
    });
    await t.dataSource.query(
      kind === 'mysql' ? 'ANALYZE TABLE documents, document_field_values, document_counts, project_members' : 'ANALYZE',
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  const FILTERS = {
    'broad select': { query: 'field.region=EU', matches: (f: Fields) => f.region === 'EU' },
    'selective select': { query: 'field.region=US', matches: (f: Fields) => f.region === 'US' },
    'broad range': {
      query: 'field.amount[gte]=100&field.amount[lte]=499',
      matches: (f: Fields) => f.amount !== undefined && f.amount >= 100 && f.amount <= 499,
    },
    'selective range': {
      query: 'field.amount[gte]=10&field.amount[lte]=30',
      matches: (f: Fields) => f.amount !== undefined && f.amount >= 10 && f.amount <= 30,
    },
  };
  type Fields = { region?: string; amount?: number };
  type FilterName = keyof typeof FILTERS;

  /** The ids the list must answer, in its order (-updatedAt, ties by id descending). */
  const expected = (who: 'reader' | 'member', name: FilterName) =>
    documents
      .filter(
        (document) =>
          !document.deletedAt &&
          document.documentTypeId === typeA &&
          (who === 'reader' || projects.slice(0, 2).includes(document.projectId) || document.uploadedBy === memberId) &&
          FILTERS[name].matches(document.fields as Fields),
      )
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((document) => document.id);

  const get = async (who: 'reader' | 'member', query: string) => {
    const response = await fetch(`${t.url}/api/documents?documentTypeId=${typeA}&limit=${LIMIT}&${query}`, {
      headers: { authorization: `Bearer ${tokens[who]}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      documents: { id: string }[];
      pagination: { total: number; totalIsExact: boolean; nextCursor: string | null };
    };
  };

  /** Whether the statements sent during `run` include a documents-first page (the values joined after the documents, in that order). */
  const readsDocumentsFirst = async (run: () => Promise<unknown>) => {
    const runner = t.dataSource.createQueryRunner();
    const prototype = Object.getPrototypeOf(runner) as { query: (sql: string) => Promise<unknown> };
    await runner.release();
    const spy = vi.spyOn(prototype, 'query');
    try {
      await run();
      return spy.mock.calls.some(([sql]) => /(STRAIGHT_JOIN|CROSS JOIN) document_field_values f0 /.test(sql));
    } finally {
      spy.mockRestore();
    }
  };

  const TERMS: Record<FilterName, (region: string, amount: string) => FieldListTerms> = {
    'broad select': (region) => ({ filters: [{ fieldId: region, column: 'textValue', op: '=', value: 'EU' }] }),
    'selective select': (region) => ({ filters: [{ fieldId: region, column: 'textValue', op: '=', value: 'US' }] }),
    'broad range': (_, amount) => ({
      filters: [
        { fieldId: amount, column: 'numberValue', op: '>=', value: 100 },
        { fieldId: amount, column: 'numberValue', op: '<=', value: 499 },
      ],
    }),
    'selective range': (_, amount) => ({
      filters: [
        { fieldId: amount, column: 'numberValue', op: '>=', value: 10 },
        { fieldId: amount, column: 'numberValue', op: '<=', value: 30 },
      ],
    }),
  };

  /** The page statement of `name` with the plan forced (the total as counted). */
  const statement = (
    who: 'reader' | 'member',
    name: FilterName,
    documentsFirst: boolean,
    after?: DocumentListPosition,
  ) => {
    const visibility: DocumentVisibility =
      who === 'reader' ? { all: true } : { all: false, userId: memberId, projectIds: projects.slice(0, 2).sort() };
    return documentListStatement(
      kind === 'mysql' ? 'mysql' : 'sqlite',
      visibility,
      { documentTypeId: typeA, fields: TERMS[name](field.region, field.amount) },
      '-updatedAt',
      LIMIT,
      0,
      after,
      { matches: expected(who, name).length, documentsFirst },
    )!;
  };

  /**
   * What the plan says of the page's parts that read documents (not the member's uploads elsewhere,
   * which start from document_counts `c`): how many walk `index`, whether any sorts, whether each
   * value is probed by its whole key.
   */
  const walkFacts = async (sql: string, parameters: unknown[], index: string) => {
    if (kind === 'mysql') {
      const plan = await t.dataSource.query<
        {
          id: number | null;
          select_type: string;
          table: string;
          type: string;
          key: string | null;
          Extra: string | null;
        }[]
      >(`EXPLAIN ${sql}`, parameters);
      const fromCounts = new Set(plan.filter((step) => step.table === 'c').map((step) => step.id));
      const inParts = plan.filter((step) => step.select_type !== 'PRIMARY' && !fromCounts.has(step.id));
      const walks = inParts.filter((step) => step.table === 'd');
      return {
        parts: walks.length,
        walkIndex: walks.every((step) => step.key === index),
        sorted: walks.some((step) => /filesort|temporary/.test(step.Extra ?? '')),
        valuesByKey: inParts
          .filter((step) => step.table === 'f0')
          .every((step) => step.type === 'eq_ref' && step.key === 'PRIMARY'),
      };
    }
    const plan = await t.dataSource.query<{ id: number; parent: number; detail: string }[]>(
      `EXPLAIN QUERY PLAN ${sql}`,
      parameters,
    );
    const parts = plan
      .filter((step) => /^CO-ROUTINE p\d*$/.test(step.detail))
      .map((part) => plan.filter((step) => step.parent === part.id).map((step) => step.detail))
      .filter((steps) => steps.some((detail) => detail.startsWith('SEARCH d ')))
      .filter((steps) => !steps.some((detail) => detail.startsWith('SEARCH c ')));
    return {
      parts: parts.length,
      walkIndex: parts.every((steps) => steps.some((detail) => detail.includes(`INDEX ${index} `))),
      sorted: parts.some((steps) => steps.some((detail) => detail.includes('TEMP B-TREE'))),
      valuesByKey: parts.every((steps) =>
        steps
          .filter((detail) => detail.startsWith('SEARCH f0 '))
          .every((detail) => /\(fieldId=\? AND textValue=\? AND documentId=\?\)|PRIMARY KEY/.test(detail)),
      ),
    };
  };

  describe.each(['reader', 'member'] as const)('as %s', (who) => {
    it.each(Object.keys(FILTERS) as FilterName[])(
      '%s: the same documents, order, total and cursor pages, read the way the count says',
      async (name) => {
        const ids = expected(who, name);
        expect(ids.length).toBeGreaterThan(name.startsWith('broad') ? 60 : 2);
        let first: Awaited<ReturnType<typeof get>> | undefined;
        const documentsFirst = await readsDocumentsFirst(async () => {
          first = await get(who, FILTERS[name].query);
        });
        expect(documentsFirst).toBe(name.startsWith('broad'));
        expect(first!.pagination).toMatchObject({ total: ids.length, totalIsExact: true });
        const seen = first!.documents.map((document) => document.id);
        let cursor = first!.pagination.nextCursor;
        while (cursor) {
          const page = await get(who, `${FILTERS[name].query}&cursor=${cursor}`);
          expect(page.pagination.total).toBe(ids.length);
          seen.push(...page.documents.map((document) => document.id));
          cursor = page.pagination.nextCursor;
        }
        expect(seen).toEqual(ids);
        const second = await get(who, `${FILTERS[name].query}&page=2`);
        expect(second.documents.map((document) => document.id)).toEqual(ids.slice(LIMIT, 2 * LIMIT));
      },
    );

    it('sort=field.amount over cursor pages: the visible documents with a value, by it', async () => {
      const ids = documents
        .filter(
          (document) =>
            !document.deletedAt &&
            document.documentTypeId === typeA &&
            (who === 'reader' || projects.slice(0, 2).includes(document.projectId) || document.uploadedBy === memberId),
        )
        .sort((a, b) => (a.fields!.amount as number) - (b.fields!.amount as number))
        .map((document) => document.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(who, `sort=field.amount&field.amount[gte]=0${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.documents.map((document) => document.id));
        cursor = page.pagination.nextCursor;
      } while (cursor);
      expect(seen).toEqual(ids);
    });

    it('answers the same keys with either plan forced, from the start and after a position', async () => {
      const stored = t.app.get(DocumentSearchRepository);
      const byId = new Map(documents.map((document) => [document.id, document]));
      for (const name of Object.keys(FILTERS) as FilterName[]) {
        const ids = expected(who, name);
        // After the second id: its updatedAt is shared with a neighbour (ties in pairs), so the id breaks it.
        const after = { value: stored.stored(byId.get(ids[1])!.updatedAt), id: ids[1] };
        for (const documentsFirst of [true, false]) {
          for (const position of [undefined, after]) {
            const [sql, parameters] = statement(who, name, documentsFirst, position);
            const rows = await t.dataSource.query<{ id: string; listTotal: unknown }[]>(sql, parameters);
            const want = position ? ids.slice(2, 2 + LIMIT) : ids.slice(0, LIMIT);
            expect(
              rows.map((row) => row.id),
              `${name}, documents-first ${documentsFirst}`,
            ).toEqual(want);
            expect(Number(rows[0].listTotal)).toBe(ids.length);
          }
        }
      }
    });

    it('documents-first walks the type index of each part in order and probes the values by key', async () => {
      const index = who === 'reader' ? 'IDX_documents_type_list' : 'IDX_documents_project_type_list';
      const [sql, parameters] = statement(who, 'broad select', true);
      expect(await walkFacts(sql, parameters, index)).toEqual({
        parts: who === 'reader' ? 1 : 2,
        walkIndex: true,
        sorted: false,
        valuesByKey: true,
      });
    });
  });
});
