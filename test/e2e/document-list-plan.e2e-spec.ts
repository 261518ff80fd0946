// The list's plan: page 1 read off the (projectId, sort key, id) indexes, keys only, the rows by
// primary key, the total from document_counts; and how many statements one list request sends (2).
import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentCounts } from '../../src/documents/document-counts.repository.js';
import { documentListStatement, type DocumentVisibility } from '../../src/documents/document-search.repository.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import { databasesUnderTest } from '../support/databases.js';
import { addProject, addUser } from '../support/document-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const PER_PROJECT = 150;
const SORT_INDEX = {
  '-updatedAt': 'IDX_documents_project_list',
  createdAt: 'IDX_documents_project_created',
  title: 'IDX_documents_project_title',
} as const;

describe.each(databasesUnderTest())('the document list plan on %s', (kind) => {
  let t: TestApp;
  let projects: string[];
  let userId: string;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    projects = [await addProject(t, 'Plan A'), await addProject(t, 'Plan B'), await addProject(t, 'Plan C')];
    userId = await addUser(t, 'planner', { [projects[0]]: 'viewer', [projects[1]]: 'viewer' });
    token = await t.login('planner');
    const base = Date.now() - 86_400_000;
    const documents = projects.flatMap((projectId, p) =>
      Array.from({ length: PER_PROJECT }, (_, n) => {
        const at = new Date(base + (p * PER_PROJECT + n) * 1000);
        return Object.assign(new Document(), {
          id: randomUUID(),
          projectId,
          documentTypeId: t.seed.documentTypes[n % 2].id,
          title: `plan ${n} of ${p}`,
          description: 'x'.repeat(500),
          fileName: 'plan.pdf',
          fileSize: 1,
          mimeType: 'application/pdf',
          currentVersion: 1,
          status: n % 3 ? 'draft' : 'published',
          tags: ['plan'],
          metadata: { n },
          fields: null,
          uploadedBy: t.seed.users[0].id,
          rowVersion: 1,
          createdAt: at,
          updatedAt: at,
          sha256: null,
          deletedAt: null,
          deletedBy: null,
        } satisfies Document);
      }),
    );
    await t.dataSource.transaction(async (manager) => {
      for (let i = 0; i < documents.length; i += 100)
        await manager.insert(Document, documents.slice(i, i + 100) as QueryDeepPartialEntity<Document>[]);
      await new DocumentCounts().move(
        manager,
        documents.map((document) => ({ before: null, after: document })),
      );
    });
    await t.dataSource.query(
      kind === 'mysql' ? 'ANALYZE TABLE documents, document_counts, project_members' : 'ANALYZE',
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  /**
   * What the plan says about the member projects' parts (not the caller's uploads elsewhere, which
   * start from document_counts `c`): how many read `index`, how many of them sort, whether the rows
   * come by primary key, and whether the uploads-elsewhere part reads document_counts first.
   */
  const planFacts = async (sql: string, parameters: unknown[], index: string) => {
    if (kind === 'mysql') {
      const plan = await t.dataSource.query<
        {
          id: number | null;
          table: string;
          key: string | null;
          type: string;
          Extra: string | null;
          select_type: string;
        }[]
      >(`EXPLAIN ${sql}`, parameters);
      const fromCounts = new Set(
        plan.filter((step) => step.table === 'c' && step.select_type === 'UNION').map((step) => step.id),
      );
      const ranges = plan.filter(
        (step) => step.table === 'd' && step.select_type !== 'PRIMARY' && !fromCounts.has(step.id),
      );
      const rows = plan.find((step) => step.table === 'd' && step.select_type === 'PRIMARY');
      const elsewhere = plan.filter((step) => fromCounts.has(step.id)).map((step) => step.table);
      return {
        rangesOnIndex: ranges.filter((step) => step.key === index).length,
        sortedRanges: ranges.filter((step) => /filesort|temporary/.test(step.Extra ?? '')).length,
        rowsByKey: rows?.type === 'eq_ref' && rows.key === 'PRIMARY',
        elsewhereFromCounts: elsewhere.join(',') === 'c,d',
      };
    }
    const plan = await t.dataSource.query<{ id: number; parent: number; detail: string }[]>(
      `EXPLAIN QUERY PLAN ${sql}`,
      parameters,
    );
    // Each part is a co-routine p<n>; what it does are its children.
    const parts = plan
      .filter((step) => /^CO-ROUTINE p\d+$/.test(step.detail))
      .map((part) => plan.filter((step) => step.parent === part.id).map((step) => step.detail));
    const projectParts = parts.filter((steps) => !steps.some((detail) => detail.startsWith('SEARCH c ')));
    const elsewhere = parts.filter((steps) => steps.some((detail) => detail.startsWith('SEARCH c ')));
    return {
      rangesOnIndex: projectParts.filter((steps) => steps.some((detail) => detail.includes(`INDEX ${index} `))).length,
      sortedRanges: projectParts.filter((steps) => steps.some((detail) => detail.includes('TEMP B-TREE'))).length,
      rowsByKey: plan.some((step) =>
        /SEARCH d USING (INTEGER PRIMARY KEY|INDEX sqlite_autoindex_documents_1)/.test(step.detail),
      ),
      elsewhereFromCounts: elsewhere.length === 1 && elsewhere[0][0].startsWith('SEARCH c '),
    };
  };

  const visibility = (): DocumentVisibility => ({
    all: false,
    userId,
    projectIds: projects.slice(0, 2).sort(),
  });

  it.each(Object.entries(SORT_INDEX))(
    'sort=%s: each project is one range of %s, the rows by primary key',
    async (sort, index) => {
      const [sql, parameters] = documentListStatement(
        kind === 'mysql' ? 'mysql' : 'sqlite',
        visibility(),
        {},
        sort as '-updatedAt',
        21,
        0,
      )!;
      // The rows' columns (TEXT ones too) are read only by the outer join, never inside a derived table.
      expect(sql.match(/d\.\*/g)).toHaveLength(1);
      expect(await planFacts(sql, parameters, index)).toEqual({
        rangesOnIndex: 2,
        sortedRanges: 0,
        rowsByKey: true,
        elsewhereFromCounts: true,
      });
    },
  );

  it('one list request sends two statements: the session check with the member projects, then the page and its total', async () => {
    const runner = t.dataSource.createQueryRunner();
    const prototype = Object.getPrototypeOf(runner) as { query: (sql: string) => Promise<unknown> };
    await runner.release();
    const spy = vi.spyOn(prototype, 'query');
    try {
      const list = async (bearer: string) => {
        spy.mockClear();
        const response = await fetch(`${t.url}/api/documents?limit=20`, {
          headers: { authorization: `Bearer ${bearer}` },
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { pagination: { total: number } };
        const sql = spy.mock.calls
          .map(([text]) => text)
          .filter((text) => /\b(documents|document_counts|document_contents|project_members|users)\b/.test(text));
        return { total: body.pagination.total, statements: sql.length };
      };
      expect(await list(token)).toEqual({ total: 2 * PER_PROJECT, statements: 2 });
      const admin = await list(await t.login('admin'));
      expect(admin.statements).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });
});
