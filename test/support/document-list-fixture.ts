import request, { type Response } from 'supertest';
import { afterAll, beforeAll } from 'vitest';
import { addDocument, addProject, addUser } from './document-fixtures.js';
import type { DatabaseKind } from './databases.js';
import { createTestApp, type TestApp } from './test-app.js';

export interface Fixture {
  id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The document list suites' app and data: projects zeus (mara manages it), apollo and hermes (the
 * seed's), nina in no project with one upload, vera viewing apollo, and documents z1-z5, n1.
 */
export class DocumentListFixture {
  t!: TestApp;
  readonly tokens: Record<string, string> = {};
  zeus = '';
  apollo = '';
  hermes = '';
  ninaId = '';
  readonly z: Record<'z1' | 'z2' | 'z3' | 'z4' | 'z5' | 'n1', string> = {} as never;
  /** The visible zeus documents, for the expected orders. */
  readonly fixtures: Fixture[] = [];
  readonly T = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);

  constructor(kind: DatabaseKind) {
    const { z, fixtures, minus, T } = this;
    beforeAll(async () => {
      this.t = await createTestApp(kind);
      [this.apollo, this.hermes] = this.t.seed.projects.map((project) => project.id);
      this.zeus = await addProject(this.t, 'Zeus');
      const mara = await addUser(this.t, 'mara', { [this.zeus]: 'manager' });
      this.ninaId = await addUser(this.t, 'nina');
      await addUser(this.t, 'vera', { [this.apollo]: 'viewer' });
      const add = async (key: keyof typeof z, fields: Parameters<typeof addDocument>[1]) => {
        z[key] = await addDocument(this.t, fields);
        if (!fields.deletedAt && fields.projectId === this.zeus) {
          fixtures.push({
            id: z[key],
            title: fields.title!,
            createdAt: fields.createdAt!,
            updatedAt: fields.updatedAt!,
          });
        }
      };
      await add('z1', {
        projectId: this.zeus,
        uploadedBy: mara,
        title: 'alpha report',
        description: 'Quarterly supplier figures.',
        fileName: 'alpha.pdf',
        tags: ['zeta', 'finance'],
        createdAt: minus(5),
        updatedAt: T,
      });
      await add('z2', {
        projectId: this.zeus,
        uploadedBy: mara,
        title: 'alpha report',
        description: 'Supplier contract renewal.',
        tags: ['zeta'],
        status: 'in_review',
        createdAt: minus(3),
        updatedAt: T,
      });
      await add('z3', {
        projectId: this.zeus,
        uploadedBy: mara,
        title: 'beta memo',
        description: 'Unrelated.',
        fileName: 'budget-plan.xlsx',
        tags: ['finance'],
        status: 'published',
        createdAt: minus(3),
        updatedAt: minus(1),
      });
      await add('z4', {
        projectId: this.zeus,
        uploadedBy: mara,
        title: 'gamma notes',
        description: 'supplier supplier supplier contract',
        documentTypeId: this.t.seed.documentTypes[1].id,
        createdAt: minus(1),
        updatedAt: minus(2),
      });
      await add('z5', {
        projectId: this.zeus,
        uploadedBy: mara,
        title: 'deleted supplier',
        createdAt: minus(1),
        updatedAt: minus(1),
        deletedAt: T,
        deletedBy: mara,
      });
      // nina is a member of nothing: she sees her own upload only.
      await add('n1', {
        projectId: this.hermes,
        uploadedBy: this.ninaId,
        title: 'nina own',
        createdAt: minus(900),
        updatedAt: minus(900),
      });
      for (const name of ['admin', 'alice', 'erin', 'mara', 'nina', 'vera'])
        this.tokens[name] = await this.t.login(name);
    });

    afterAll(async () => {
      await this.t?.close();
    });
  }

  readonly minus = (minutes: number): Date => new Date(this.T.getTime() - minutes * 60_000);

  readonly list = (who: string, query = '') =>
    request(this.t.url)
      .get(`/api/documents${query ? `?${query}` : ''}`)
      .set('Authorization', `Bearer ${this.tokens[who]}`);
  readonly ids = (response: Response): string[] => {
    if (response.status !== 200)
      throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(response.body)}`);
    return (response.body.documents as { id: string }[]).map((document) => document.id);
  };
  readonly seededIds = (projectId?: string): string[] =>
    this.t.seed.documents
      .filter((_, index) => projectId === undefined || this.t.seed.projects[index % 2].id === projectId)
      .map((document) => document.id);
}
