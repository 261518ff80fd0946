import { Test } from '@nestjs/testing';
import { beforeEach, describe, expect, it, vi, type Mocked } from 'vitest';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import type { TokenSession } from '../auth/token-session.js';
import type { AuthContext } from '../users/users.sql.js';
import { ApiError } from '../common/errors/error-codes.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentsRepository, type DocumentWithAccess, type DocumentWrite } from './documents.repository.js';
import type { ProjectRole } from '../projects/project-role.js';
import { storageConfig } from '../config/configuration.js';
import { FileStore } from '../storage/file-store.js';
import { DocumentsService, ifMatchSatisfied, normalizeTags } from './documents.service.js';
import { Document } from './entities/document.entity.js';

// The service's rules (permissions, diffing, If-Match, the lost-race fallback) against a mocked
// repository; what reaches the database is asserted on real databases in documents.repository.spec.ts.

const owner: AuthenticatedUser = { id: 'owner-id', username: 'alice', roles: [{ name: 'user', permissions: {} }] };
const stranger: AuthenticatedUser = { id: 'other-id', username: 'bob', roles: [{ name: 'user', permissions: {} }] };
const admin: AuthenticatedUser = {
  id: 'admin-id',
  username: 'admin',
  roles: [{ name: 'admin', permissions: { documents: ['update'] } }],
};

const DOCUMENT_ID = '11111111-1111-4111-8111-111111111111';
const OLD_UPDATED_AT = new Date('2026-01-02T00:00:00.000Z');

/** The document as the repository answers it: with the caller's project role (a contributor by default). */
function access(document: Document, projectRole: ProjectRole | null = 'contributor'): DocumentWithAccess {
  return { document, projectRole };
}

function makeDocument(overrides: Partial<Document> = {}): Document {
  return Object.assign(new Document(), {
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
    tags: ['a'],
    metadata: { k: 1 },
    uploadedBy: owner.id,
    rowVersion: 3,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    updatedAt: OLD_UPDATED_AT,
    ...overrides,
  });
}

/** The token of a user's current session. */
const session = (user: AuthenticatedUser): TokenSession => ({ userId: user.id, tokenVersion: 0 });

/** What the caller's rows say: these users are active at token version 0; anyone else does not exist. */
function callerOf(userId: string): AuthContext | null {
  const user = [owner, stranger, admin].find((candidate) => candidate.id === userId);
  return user ? { ...user, isActive: true, tokenVersion: 0 } : null;
}

describe('DocumentsService', () => {
  let service: DocumentsService;
  let repository: Mocked<
    Pick<DocumentsRepository, 'findById' | 'findForChange' | 'writeIfUnchanged' | 'updateLocked' | 'history'>
  >;
  /** What the locked read inside updateLocked finds. */
  let lockedDocument: Document | null;
  /** The caller's project role the repository reports. */
  let role: ProjectRole | null;
  /** Writes updateLocked was asked to make. */
  let lockedWrites: DocumentWrite[];

  beforeEach(async () => {
    lockedDocument = makeDocument();
    role = 'contributor';
    lockedWrites = [];
    repository = {
      findById: vi.fn(async () => access(makeDocument(), role)),
      // The caller's session and roles come with the first read; the document as findById says.
      findForChange: vi.fn(async (id: string, callerId: string) => ({
        caller: callerOf(callerId),
        found: await repository.findById(id, callerId),
        othersTakePart: true,
      })),
      writeIfUnchanged: vi.fn(async () => true),
      updateLocked: vi.fn(async (_id, _viewerId, decide) => {
        const { result, write } = decide(lockedDocument && access(lockedDocument, role));
        if (write) lockedWrites.push(write);
        return result;
      }) as Mocked<DocumentsRepository>['updateLocked'],
      history: vi.fn(async () => []),
    };
    // Resolving DocumentsService by its class proves decorator metadata reaches the tests:
    // without emitDecoratorMetadata Nest could not tell what to inject and this would throw.
    const moduleRef = await Test.createTestingModule({
      providers: [
        DocumentsService,
        DocumentAccessPolicy,
        { provide: DocumentsRepository, useValue: repository },
        // The trash purge's collaborators; the update and history paths never touch them.
        { provide: FileStore, useValue: {} },
        { provide: storageConfig.KEY, useValue: { trashRetentionDays: 30 } },
      ],
    }).compile();
    service = moduleRef.get(DocumentsService);
  });

  const writes = () => repository.writeIfUnchanged.mock.calls.map(([write]) => write);

  it('is wired by dependency injection', () => {
    expect(service).toBeInstanceOf(DocumentsService);
  });

  it('changes only the given fields, moves updatedAt and rowVersion forward and records the change', async () => {
    const updated = await service.update(DOCUMENT_ID, { title: 'New title' }, session(owner));
    expect(updated).toBeInstanceOf(Document);
    expect(updated).toEqual(
      makeDocument({ title: 'New title', rowVersion: 4, updatedAt: expect.any(Date) as unknown as Date }),
    );
    expect(updated.updatedAt.getTime()).toBeGreaterThan(OLD_UPDATED_AT.getTime());

    const [write] = writes();
    expect(write).toMatchObject({ values: { title: 'New title' }, updatedAt: updated.updatedAt, rowVersion: 4 });
    expect(write.from.rowVersion).toBe(3);
    expect(write.history).toMatchObject({
      documentId: DOCUMENT_ID,
      changedBy: owner.id,
      changedAt: updated.updatedAt,
      rowVersion: 4,
      changes: { title: { from: 'Old title', to: 'New title' } },
    });
    expect(write.history.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('replaces tags (deduplicated) and metadata whole', async () => {
    const updated = await service.update(
      DOCUMENT_ID,
      { description: 'New', tags: ['b', 'a', 'b'], metadata: { x: [1] } },
      session(owner),
    );
    expect(updated).toMatchObject({ description: 'New', tags: ['b', 'a'], metadata: { x: [1] }, rowVersion: 4 });
    expect(writes()[0].values).toEqual({ description: 'New', tags: ['b', 'a'], metadata: { x: [1] } });
    expect(writes()[0].history.changes).toEqual({
      description: { from: 'Old description', to: 'New' },
      tags: { from: ['a'], to: ['b', 'a'] },
      metadata: { from: { k: 1 }, to: { x: [1] } },
    });
  });

  it('moves updatedAt forward even when the clock is behind the stored value', async () => {
    repository.findById.mockResolvedValueOnce(
      access(makeDocument({ updatedAt: new Date('2999-01-01T00:00:00.000Z') })),
    );
    const updated = await service.update(DOCUMENT_ID, { title: 'x' }, session(owner));
    expect(updated.updatedAt.toISOString()).toBe('2999-01-01T00:00:00.001Z');
  });

  it('treats an empty or identical update as no change and writes nothing', async () => {
    await expect(service.update(DOCUMENT_ID, {}, session(owner))).resolves.toEqual(makeDocument());
    await expect(
      service.update(DOCUMENT_ID, { title: 'Old title', tags: ['a', 'a'] }, session(owner)),
    ).resolves.toEqual(makeDocument());
    expect(repository.writeIfUnchanged).not.toHaveBeenCalled();
    expect(repository.updateLocked).not.toHaveBeenCalled();
  });

  it('lets the uploader and a documents:update role change it; another member may read but not change', async () => {
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, session(admin))).resolves.toMatchObject({ title: 'x' });
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, session(stranger))).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(service.history(DOCUMENT_ID, stranger)).resolves.toEqual([]);
    expect(writes()).toHaveLength(1);
  });

  it('hides the document (404) from a user who may not read it', async () => {
    role = null;
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, session(stranger))).rejects.toMatchObject({
      code: 'document_not_found',
    });
    await expect(service.history(DOCUMENT_ID, stranger)).rejects.toMatchObject({ code: 'document_not_found' });
    expect(repository.history).not.toHaveBeenCalled();
  });

  it('lets a project manager change any document of the project, and not an uploader who left it', async () => {
    role = 'manager';
    await expect(service.update(DOCUMENT_ID, { title: 'm' }, session(stranger))).resolves.toMatchObject({ title: 'm' });
    role = 'viewer';
    await expect(service.update(DOCUMENT_ID, { title: 'v' }, session(owner))).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('checks the session in the read: a revoked token, an inactive or unknown user is 401 and nothing is written', async () => {
    const revoked = { ...session(owner), tokenVersion: 1 };
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, revoked)).rejects.toMatchObject({
      code: 'unauthorized',
      details: expect.stringMatching(/revoked/) as unknown as string,
    });
    repository.findForChange.mockResolvedValueOnce({
      caller: { ...callerOf(owner.id)!, isActive: false },
      found: null,
    });
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, session(owner))).rejects.toMatchObject({
      code: 'unauthorized',
    });
    // Unknown user and unknown document: 401, not 404 (the session is checked first).
    repository.findForChange.mockResolvedValueOnce({ caller: null, found: null });
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, session(owner))).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(repository.writeIfUnchanged).not.toHaveBeenCalled();
    expect(repository.updateLocked).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown document', async () => {
    repository.findById.mockResolvedValueOnce(null);
    const error = await service.update(DOCUMENT_ID, { title: 'x' }, session(owner)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'document_not_found' });
    expect(repository.writeIfUnchanged).not.toHaveBeenCalled();
  });

  it('rejects a stale If-Match without writing, with the current ETag', async () => {
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, session(owner), '"v2"')).rejects.toMatchObject({
      code: 'precondition_failed',
      headers: { etag: '"v3"' },
    });
    expect(repository.writeIfUnchanged).not.toHaveBeenCalled();
  });

  it('with If-Match, a lost race is 412 with the ETag the winner left, and no retry', async () => {
    repository.writeIfUnchanged.mockResolvedValueOnce(false);
    repository.findById
      .mockResolvedValueOnce(access(makeDocument()))
      .mockResolvedValueOnce(access(makeDocument({ rowVersion: 4 })));
    await expect(service.update(DOCUMENT_ID, { title: 'x' }, session(owner), '"v3"')).rejects.toMatchObject({
      code: 'precondition_failed',
      headers: { etag: '"v4"' },
    });
    expect(repository.updateLocked).not.toHaveBeenCalled();
  });

  it('without If-Match, a lost race is computed again on the locked document and written there', async () => {
    repository.writeIfUnchanged.mockResolvedValueOnce(false);
    lockedDocument = makeDocument({ rowVersion: 4, description: 'Changed by the winner' });
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, session(owner))).resolves.toMatchObject({
      title: 'y',
      description: 'Changed by the winner',
      rowVersion: 5,
    });
    expect(lockedWrites).toHaveLength(1);
    expect(lockedWrites[0]).toMatchObject({ values: { title: 'y' }, rowVersion: 5 });
    expect(lockedWrites[0].from.rowVersion).toBe(4);
  });

  it('writes what the read found about other participants; the locked retry leaves it to the dispatcher', async () => {
    repository.findForChange.mockResolvedValueOnce({
      caller: callerOf(owner.id),
      found: access(makeDocument(), role),
      othersTakePart: false,
    });
    await service.update(DOCUMENT_ID, { title: 'alone' }, session(owner));
    expect(writes()[0]).toMatchObject({ othersTakePart: false, event: { type: 'document.updated' } });
    await service.update(DOCUMENT_ID, { title: 'with others' }, session(owner));
    expect(writes()[1].othersTakePart).toBe(true);

    repository.findForChange.mockResolvedValueOnce({
      caller: callerOf(owner.id),
      found: access(makeDocument(), role),
      othersTakePart: false,
    });
    repository.writeIfUnchanged.mockResolvedValueOnce(false);
    lockedDocument = makeDocument({ rowVersion: 4 });
    await service.update(DOCUMENT_ID, { title: 'raced' }, session(owner));
    // The winner may have added a participant: the locked write does not carry the earlier answer.
    expect(lockedWrites).toHaveLength(1);
    expect(lockedWrites[0].othersTakePart).toBeUndefined();
  });

  it('without If-Match, a lost race whose winner already made the change writes nothing more', async () => {
    repository.writeIfUnchanged.mockResolvedValueOnce(false);
    lockedDocument = makeDocument({ rowVersion: 4, title: 'y' });
    await expect(service.update(DOCUMENT_ID, { title: 'y' }, session(owner))).resolves.toMatchObject({
      title: 'y',
      rowVersion: 4,
    });
    expect(lockedWrites).toEqual([]);
  });

  it('lists history for readers, at most 500 entries', async () => {
    await expect(service.history(DOCUMENT_ID, owner)).resolves.toEqual([]);
    expect(repository.history).toHaveBeenCalledWith(DOCUMENT_ID, 500);
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
