import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { ENTITIES } from '../data-source.js';
import { HotPathSql } from '../database/hot-path-sql.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentsService, ifMatchSatisfied, normalizeTags } from './documents.service.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { Document } from './entities/document.entity.js';

const owner: AuthenticatedUser = { id: 'owner-id', username: 'alice', roles: [{ name: 'user', permissions: {} }] };
const stranger: AuthenticatedUser = { id: 'other-id', username: 'bob', roles: [{ name: 'user', permissions: {} }] };
const admin: AuthenticatedUser = {
  id: 'admin-id',
  username: 'admin',
  roles: [{ name: 'admin', permissions: { documents: ['update'] } }],
};

const DOCUMENT_ID = '11111111-1111-4111-8111-111111111111';
const SELECT =
  'SELECT id, projectId, documentTypeId, title, description, fileName, fileSize, mimeType, currentVersion, ' +
  'status, tags, metadata, uploadedBy, rowVersion, createdAt, updatedAt FROM documents WHERE id = ?';
const INSERT_HISTORY =
  'INSERT INTO document_history (id, documentId, changedBy, changedAt, rowVersion, changes) VALUES (?, ?, ?, ?, ?, ?)';

/** The document's row as better-sqlite3 returns it: JSON and dates as text. */
function makeRow(): Record<string, unknown> {
  return {
    id: DOCUMENT_ID,
    projectId: 'p',
    documentTypeId: 't',
    title: 'Old title',
    description: 'Old description',
    fileName: 'a.pdf',
    fileSize: 10,
    mimeType: 'application/pdf',
    currentVersion: 1,
    status: 'draft',
    tags: '["a"]',
    metadata: '{"k":1}',
    uploadedBy: owner.id,
    rowVersion: 3,
    createdAt: '2026-01-01 00:00:00.000',
    updatedAt: '2026-01-02 00:00:00.000',
  };
}

const OLD_UPDATED_AT = new Date('2026-01-02T00:00:00.000Z');

/** How the SQLite driver persists a datetime. */
function sqliteTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

describe('DocumentsService', () => {
  // Real entity metadata and real SQLite driver conversions; only the statements are mocked.
  let sqlite: DataSource;
  let service: DocumentsService;
  let select: ReturnType<typeof vi.fn>;
  let runnerQuery: ReturnType<typeof vi.fn<(sql: string, parameters: unknown[]) => Promise<unknown>>>;
  let transaction: ReturnType<typeof vi.fn>;
  let writeIfChanged: ReturnType<typeof vi.fn>;
  let affected: number[];

  beforeAll(async () => {
    sqlite = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES });
    await sqlite.initialize();
  });

  afterAll(async () => {
    await sqlite.destroy();
  });

  async function createService(type: 'mysql' | 'better-sqlite3'): Promise<DocumentsService> {
    select = vi.fn(async () => [makeRow()]);
    affected = [];
    runnerQuery = vi.fn(async (sql: string) => {
      if (sql.startsWith('SELECT')) return [makeRow()];
      if (sql.startsWith('UPDATE')) return affected.shift() ?? 1;
      return 1;
    });
    // Statements inside a transaction, recorded in order as [sql, parameters].
    const tx = {
      select: (sql: string, parameters: unknown[]) => runnerQuery(sql, parameters),
      execute: (sql: string, parameters: unknown[]) => runnerQuery(sql, parameters),
    };
    transaction = vi.fn(async (work: (transaction: typeof tx) => unknown) => work(tx));
    // HotPathSql's contract: the second statement runs only if the first changed one row, in one transaction.
    writeIfChanged = vi.fn(async (write: [string, unknown[]], then: [string, unknown[]]) =>
      transaction(async (t: typeof tx) => {
        if ((await t.execute(...write)) !== 1) return false;
        await t.execute(...then);
        return true;
      }),
    );
    const dataSource = { options: { type }, driver: sqlite.driver };

    // Resolving DocumentsService by its class proves decorator metadata reaches the tests:
    // without emitDecoratorMetadata Nest could not tell what to inject and this would throw.
    const moduleRef = await Test.createTestingModule({
      providers: [
        DocumentsService,
        DocumentAccessPolicy,
        {
          provide: getRepositoryToken(Document),
          useValue: { metadata: sqlite.getMetadata(Document) },
        },
        {
          provide: getRepositoryToken(DocumentHistory),
          useValue: { find: vi.fn(async () => []), metadata: sqlite.getMetadata(DocumentHistory) },
        },
        { provide: DataSource, useValue: dataSource },
        { provide: HotPathSql, useValue: { select, transaction, writeIfChanged } },
      ],
    }).compile();
    return moduleRef.get(DocumentsService);
  }

  function statements(): [string, unknown[]][] {
    return runnerQuery.mock.calls;
  }

  beforeEach(async () => {
    service = await createService('mysql');
  });

  it('is wired by dependency injection', () => {
    expect(service).toBeInstanceOf(DocumentsService);
  });

  it('reads the document with one SELECT and hydrates it through the driver', async () => {
    const document = await service.update(DOCUMENT_ID, {}, owner);
    expect(select).toHaveBeenCalledTimes(1);
    expect(select).toHaveBeenCalledWith(SELECT, [DOCUMENT_ID]);
    expect(document).toBeInstanceOf(Document);
    expect(document).toEqual(
      Object.assign(new Document(), {
        ...makeRow(),
        tags: ['a'],
        metadata: { k: 1 },
        createdAt: new Date('2026-01-01T00:00:00.000Z'),
        updatedAt: OLD_UPDATED_AT,
      }),
    );
  });

  it('updates only the given fields and records the change', async () => {
    const updated = await service.update(DOCUMENT_ID, { title: 'New title' }, owner);
    expect(updated.title).toBe('New title');
    expect(updated.description).toBe('Old description');
    expect(updated.rowVersion).toBe(4);
    expect(updated.updatedAt.getTime()).toBeGreaterThan(OLD_UPDATED_AT.getTime());

    expect(writeIfChanged).toHaveBeenCalledTimes(1);
    expect(transaction).toHaveBeenCalledTimes(1);
    const [update, insert, ...rest] = statements();
    expect(rest).toEqual([]);
    expect(update).toEqual([
      'UPDATE documents SET title = ?, updatedAt = ?, rowVersion = ? WHERE id = ? AND rowVersion = ?',
      ['New title', sqliteTime(updated.updatedAt), 4, DOCUMENT_ID, 3],
    ]);
    expect(insert[0]).toBe(INSERT_HISTORY);
    const [historyId, ...historyValues] = insert[1];
    expect(historyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(historyValues).toEqual([
      DOCUMENT_ID,
      owner.id,
      sqliteTime(updated.updatedAt),
      4,
      JSON.stringify({ title: { from: 'Old title', to: 'New title' } }),
    ]);
  });

  it('writes JSON columns as JSON text and replaces them whole', async () => {
    const updated = await service.update(
      DOCUMENT_ID,
      { description: 'New', tags: ['b', 'a', 'b'], metadata: { x: [1] } },
      owner,
    );
    expect(updated).toMatchObject({ description: 'New', tags: ['b', 'a'], metadata: { x: [1] }, rowVersion: 4 });
    const [update, insert] = statements();
    expect(update[0]).toBe(
      'UPDATE documents SET description = ?, tags = ?, metadata = ?, updatedAt = ?, rowVersion = ? ' +
        'WHERE id = ? AND rowVersion = ?',
    );
    expect(update[1]).toEqual(['New', '["b","a"]', '{"x":[1]}', sqliteTime(updated.updatedAt), 4, DOCUMENT_ID, 3]);
    expect(JSON.parse(insert[1][5] as string)).toEqual({
      description: { from: 'Old description', to: 'New' },
      tags: { from: ['a'], to: ['b', 'a'] },
      metadata: { from: { k: 1 }, to: { x: [1] } },
    });
  });

  it('moves updatedAt forward even when the clock is behind the stored value', async () => {
    const future = makeRow();
    future.updatedAt = '2999-01-01 00:00:00.000';
    select.mockResolvedValueOnce([future]);
    const updated = await service.update(DOCUMENT_ID, { title: 'x' }, owner);
    expect(updated.updatedAt.toISOString()).toBe('2999-01-01T00:00:00.001Z');
    expect(statements()[0][1]).toContain('2999-01-01 00:00:00.001');
  });

  it('treats an empty or identical update as no change', async () => {
    await expect(service.update(DOCUMENT_ID, {}, owner)).resolves.toMatchObject({
      rowVersion: 3,
      updatedAt: OLD_UPDATED_AT,
    });
    await expect(service.update(DOCUMENT_ID, { tags: ['a', 'a'] }, owner)).resolves.toMatchObject({
      rowVersion: 3,
      updatedAt: OLD_UPDATED_AT,
    });
    expect(transaction).not.toHaveBeenCalled();
    expect(runnerQuery).not.toHaveBeenCalled();
  });

  it('lets the uploader and a documents:update role through, and nobody else', async () => {
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, admin)).resolves.toMatchObject({ title: 'x' });
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, stranger)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('answers 404 for an unknown document', async () => {
    select.mockResolvedValueOnce([]);
    const error = await service.update(DOCUMENT_ID, { title: 'x' }, owner).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'document_not_found' });
    expect(transaction).not.toHaveBeenCalled();
  });

  it('rejects a stale If-Match without writing', async () => {
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, owner, '"v2"')).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect(transaction).not.toHaveBeenCalled();
  });

  it('with If-Match, a lost race is 412 and writes no history', async () => {
    affected.push(0);
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, owner, '"v3"')).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect(statements().map(([sql]) => sql.split(' ')[0])).toEqual(['UPDATE']);
  });

  it('without If-Match, a lost race retries under a row lock (FOR UPDATE on MySQL)', async () => {
    affected.push(0);
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, owner)).resolves.toMatchObject({
      title: 'y',
      rowVersion: 4,
    });
    expect(select).toHaveBeenCalledTimes(1);
    expect(transaction).toHaveBeenCalledTimes(2);
    expect(statements().map(([sql]) => sql.split(' ')[0])).toEqual(['UPDATE', 'SELECT', 'UPDATE', 'INSERT']);
    expect(statements()[1]).toEqual([`${SELECT} FOR UPDATE`, [DOCUMENT_ID]]);
  });

  it('on SQLite, the locked retry reads without FOR UPDATE (writers are serialised)', async () => {
    service = await createService('better-sqlite3');
    affected.push(0);
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, owner)).resolves.toMatchObject({ title: 'y' });
    expect(statements()[1]).toEqual([SELECT, [DOCUMENT_ID]]);
  });

  it('fails rather than writing twice when a locked document changes under its lock', async () => {
    affected.push(0, 0);
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, owner)).rejects.toThrow(
      'A locked document changed under its lock',
    );
    expect(statements().map(([sql]) => sql.split(' ')[0])).toEqual(['UPDATE', 'SELECT', 'UPDATE']);
  });
});

describe('document helpers', () => {
  it('normalizes tags keeping the first occurrence', () => {
    expect(normalizeTags(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });

  it('matches If-Match lists and the wildcard', () => {
    expect(ifMatchSatisfied('"v3"', { rowVersion: 3 })).toBe(true);
    expect(ifMatchSatisfied('"v1", "v3"', { rowVersion: 3 })).toBe(true);
    expect(ifMatchSatisfied('*', { rowVersion: 3 })).toBe(true);
    expect(ifMatchSatisfied('W/"v3"', { rowVersion: 3 })).toBe(false);
    expect(ifMatchSatisfied('"v2"', { rowVersion: 3 })).toBe(false);
  });
});
