import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDocument, addProject, addUser, moveDocument } from '../support/document-fixtures.js';
import { MAX_SCOPED_PROJECTS } from '../../src/documents/document-search.repository.js';
import { databasesUnderTest } from '../support/databases.js';
import { DocumentListFixture } from '../support/document-list-fixture.js';

describe.each(databasesUnderTest())('GET /api/documents: q follows every write on %s', (kind) => {
  const data = new DocumentListFixture(kind);
  const { minus, list, ids } = data;

  describe('q follows every write (results and totals)', () => {
    let hera: string;
    let iris: string;
    const o: Record<'o1' | 'o2' | 'o3' | 'nina', string> = {} as never;
    const search = async (who: string, query: string) => {
      const response = await list(who, query);
      return { ids: ids(response), total: response.body.pagination.total as number };
    };
    const send = (method: 'delete' | 'post' | 'put', path: string, who: string) =>
      request(data.t.url)[method](`/api/documents/${path}`).set('Authorization', `Bearer ${data.tokens[who]}`);

    beforeAll(async () => {
      hera = await addProject(data.t, 'Hera');
      iris = await addProject(data.t, 'Iris');
      await addUser(data.t, 'kim', { [hera]: 'manager' });
      // Uploaded by someone who searches nothing here: kim and lou see them through their projects only.
      const max = await addUser(data.t, 'max');
      await addUser(data.t, 'lou', { [iris]: 'manager' });
      const add = (key: keyof typeof o, projectId: string, uploadedBy: string, title: string, minutes: number) =>
        addDocument(data.t, {
          projectId,
          uploadedBy,
          title,
          createdAt: minus(minutes),
          updatedAt: minus(minutes),
        }).then((id) => (o[key] = id));
      // Relevance: o1 has the word three times, o2 twice, o3 once.
      await add('o1', hera, max, 'orbit orbit orbit', 30);
      await add('o2', hera, max, 'orbit orbit plan', 20);
      await add('o3', hera, max, 'orbit notes', 10);
      // nina's upload in Iris, where she is no member: hers to find, and lou's.
      await add('nina', iris, data.ninaId, 'orbit of nina', 5);
      for (const name of ['kim', 'lou']) data.tokens[name] = await data.t.login(name);
    });

    it('finds by relevance, with the total on every page and past the end', async () => {
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o2, o.o3], total: 3 });
      expect(await search('kim', 'q=orbit&limit=2&page=2')).toEqual({ ids: [o.o3], total: 3 });
      expect(await search('kim', 'q=orbit&limit=2&page=3')).toEqual({ ids: [], total: 3 });
      expect(await search('nina', 'q=orbit')).toEqual({ ids: [o.nina], total: 1 });
      expect(await search('lou', 'q=orbit')).toEqual({ ids: [o.nina], total: 1 });
      expect(await search('nina', `q=orbit&projectId=${iris}`)).toEqual({ ids: [o.nina], total: 1 });
      expect(await search('nina', `q=orbit&projectId=${hera}`)).toEqual({ ids: [], total: 0 });
      expect(await search('admin', `q=orbit&projectId=${hera}`)).toEqual({ ids: [o.o1, o.o2, o.o3], total: 3 });
      expect(await search('kim', `q=orbit&projectId=${iris}`)).toEqual({ ids: [], total: 0 });
    });

    it('walks a search by cursor with the same total on every page', async () => {
      const walked: string[] = [];
      let response = await list('kim', 'q=orbit&sort=-updatedAt&limit=1');
      walked.push(...ids(response));
      while (response.body.pagination.nextCursor) {
        expect(response.body.pagination.total).toBe(3);
        response = await list('kim', `q=orbit&sort=-updatedAt&limit=1&cursor=${response.body.pagination.nextCursor}`);
        walked.push(...ids(response));
      }
      expect(walked).toEqual([o.o3, o.o2, o.o1]);
    });

    it('leaves out a trashed document and finds it again once restored', async () => {
      expect((await send('delete', o.o1, 'kim')).status).toBe(204);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o2, o.o3], total: 2 });
      const everything = await search('admin', 'q=orbit');
      expect({ ids: everything.ids.toSorted(), total: everything.total }).toEqual({
        ids: [o.o2, o.o3, o.nina].toSorted(),
        total: 3,
      });
      expect(await search('kim', 'q=orbit&limit=2&page=2')).toEqual({ ids: [], total: 2 });
      expect((await send('post', `${o.o1}/restore`, 'kim')).status).toBe(200);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o2, o.o3], total: 3 });
    });

    it('follows a metadata change, in and out of the words', async () => {
      expect((await send('put', o.o3, 'kim').send({ title: 'moon notes' })).status).toBe(200);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o2], total: 2 });
      expect(await search('kim', 'q=moon')).toEqual({ ids: [o.o3], total: 1 });
      expect((await send('put', o.o3, 'kim').send({ description: 'back in orbit, all about it' })).status).toBe(200);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o2, o.o3], total: 3 });
      // The MariaDB index is built without stop words (as SQLite's): "about" is found too.
      expect(await search('kim', 'q=about%20orbit')).toEqual({ ids: [o.o3], total: 1 });
    });

    it("follows a document's project (written in the database: no route moves documents)", async () => {
      await moveDocument(data.t, o.o2, iris);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o3], total: 2 });
      expect(await search('lou', 'q=orbit')).toEqual({ ids: [o.o2, o.nina], total: 2 });
      await moveDocument(data.t, o.o2, hera);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o1, o.o2, o.o3], total: 3 });
    });

    it('forgets a permanently deleted document', async () => {
      expect((await send('delete', `${o.o1}?permanent=true`, 'admin')).status).toBe(204);
      expect(await search('kim', 'q=orbit')).toEqual({ ids: [o.o2, o.o3], total: 2 });
      expect(await search('admin', `q=orbit&projectId=${hera}`)).toEqual({ ids: [o.o2, o.o3], total: 2 });
    });

    it(`finds the same for a member of more than ${MAX_SCOPED_PROJECTS} projects (matched, then joined by project)`, async () => {
      const many: Record<string, 'viewer'> = { [hera]: 'viewer' };
      for (let n = 0; n < MAX_SCOPED_PROJECTS; n++) many[await addProject(data.t, `Empty ${n}`)] = 'viewer';
      const pat = await addUser(data.t, 'pat', many);
      data.tokens.pat = await data.t.login('pat');
      const own = await addDocument(data.t, { projectId: iris, uploadedBy: pat, title: 'orbit of pat' });
      const found = await search('pat', 'q=orbit');
      expect({ ids: found.ids.toSorted(), total: found.total }).toEqual({
        ids: [o.o2, o.o3, own].toSorted(),
        total: 3,
      });
      expect(found.ids[0]).toBe(o.o2);
      expect(await search('pat', 'q=orbit&limit=2&page=3')).toEqual({ ids: [], total: 3 });
      expect(await search('pat', `q=orbit&projectId=${iris}`)).toEqual({ ids: [own], total: 1 });
    });
  });
});
