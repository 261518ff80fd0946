import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
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

function makeDocument(): Document {
  return Object.assign(new Document(), {
    id: '11111111-1111-4111-8111-111111111111',
    projectId: 'p',
    documentTypeId: 't',
    title: 'Old title',
    description: 'Old description',
    fileName: 'a.pdf',
    fileSize: 10,
    mimeType: 'application/pdf',
    currentVersion: 1,
    status: 'draft',
    tags: ['a'],
    metadata: { k: 1 },
    uploadedBy: owner.id,
    rowVersion: 3,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    updatedAt: new Date('2026-01-02T00:00:00.000Z'),
  });
}

describe('DocumentsService', () => {
  let service: DocumentsService;
  let findOne: ReturnType<typeof vi.fn>;
  let execute: ReturnType<typeof vi.fn>;
  let insert: ReturnType<typeof vi.fn>;

  beforeEach(async () => {
    findOne = vi.fn(async () => makeDocument());
    execute = vi.fn(async () => ({ affected: 1 }));
    insert = vi.fn(async () => undefined);
    const builder = { update: () => builder, set: () => builder, where: () => builder, execute };
    const manager = { createQueryBuilder: () => builder, insert, findOne, connection: { options: { type: 'mysql' } } };
    const dataSource = { transaction: async (work: (m: typeof manager) => unknown) => work(manager) };

    // Resolving DocumentsService by its class proves decorator metadata reaches the tests:
    // without emitDecoratorMetadata Nest could not tell what to inject and this would throw.
    const moduleRef = await Test.createTestingModule({
      providers: [
        DocumentsService,
        DocumentAccessPolicy,
        { provide: getRepositoryToken(Document), useValue: { manager } },
        { provide: getRepositoryToken(DocumentHistory), useValue: { find: vi.fn(async () => []) } },
        { provide: DataSource, useValue: dataSource },
      ],
    }).compile();
    service = moduleRef.get(DocumentsService);
  });

  it('is wired by dependency injection', () => {
    expect(service).toBeInstanceOf(DocumentsService);
  });

  it('updates only the given fields and records the change', async () => {
    const updated = await service.update(makeDocument().id, { title: 'New title' }, owner);
    expect(updated.title).toBe('New title');
    expect(updated.description).toBe('Old description');
    expect(updated.rowVersion).toBe(4);
    expect(updated.updatedAt.getTime()).toBeGreaterThan(makeDocument().updatedAt.getTime());
    expect(insert).toHaveBeenCalledWith(
      DocumentHistory,
      expect.objectContaining({ changedBy: owner.id, changes: { title: { from: 'Old title', to: 'New title' } } }),
    );
  });

  it('treats an empty or identical update as no change', async () => {
    await expect(service.update(makeDocument().id, {}, owner)).resolves.toMatchObject({ rowVersion: 3 });
    await expect(service.update(makeDocument().id, { tags: ['a', 'a'] }, owner)).resolves.toMatchObject({
      rowVersion: 3,
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('lets the uploader and a documents:update role through, and nobody else', async () => {
    await expect(service.update(makeDocument().id, { title: 'x' }, admin)).resolves.toMatchObject({ title: 'x' });
    await expect(service.update(makeDocument().id, { title: 'x' }, stranger)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('answers 404 for an unknown document', async () => {
    findOne.mockResolvedValueOnce(null);
    await expect(service.update(makeDocument().id, { title: 'x' }, owner)).rejects.toBeInstanceOf(ApiError);
  });

  it('rejects a stale If-Match without writing', async () => {
    await expect(service.update(makeDocument().id, { title: 'x' }, owner, '"v2"')).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('with If-Match, a lost race is 412; without, it retries under a row lock', async () => {
    execute.mockResolvedValueOnce({ affected: 0 });
    await expect(service.update(makeDocument().id, { title: 'x' }, owner, '"v3"')).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    execute.mockResolvedValueOnce({ affected: 0 });
    await expect(service.update(makeDocument().id, { title: 'y' }, owner)).resolves.toMatchObject({ title: 'y' });
    expect(findOne).toHaveBeenCalledTimes(3);
    expect(findOne).toHaveBeenLastCalledWith(
      Document,
      expect.objectContaining({ lock: { mode: 'pessimistic_write' } }),
    );
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
