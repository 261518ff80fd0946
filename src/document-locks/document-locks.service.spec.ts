import { Test } from '@nestjs/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { Clock } from '../common/time/clock.js';
import { governanceConfig } from '../config/configuration.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentAccessPolicy } from '../documents/document-access.policy.js';
import type { ChangeDescription } from '../documents/document-change.js';
import { DocumentWriteGuards } from '../documents/document-write-guards.js';
import { DocumentsService } from '../documents/documents.service.js';
import type { Document } from '../documents/entities/document.entity.js';
import { DocumentLocksRepository, type HeldLock } from './document-locks.repository.js';
import { DocumentLocksService } from './document-locks.service.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const audit = { actorId: 'alice', ip: null, requestId: null };
const user = (id: string): AuthenticatedUser => ({ id, username: id, roles: [{ name: 'user', permissions: {} }] });
const minutesFromNow = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const held = (holderId: string, expiresAt: Date): HeldLock => ({
  documentId: 'd1',
  holderId,
  holderName: holderId,
  acquiredAt: NOW,
  expiresAt,
});
const change = (releaseLock = false) => ({ action: 'updated', releaseLock }) as unknown as ChangeDescription;

describe('DocumentLocksService (repository mocked)', () => {
  let service: DocumentLocksService;
  const tx = {} as Tx;
  const locks = { find: vi.fn(), put: vi.fn(), remove: vi.fn() };
  const documents = { readableAccess: vi.fn() };
  const policy = { canChange: vi.fn() };
  const trail = { record: vi.fn() };

  beforeEach(async () => {
    vi.clearAllMocks();
    documents.readableAccess.mockResolvedValue({ projectRole: 'contributor' });
    policy.canChange.mockReturnValue(true);
    const module = await Test.createTestingModule({
      providers: [
        DocumentLocksService,
        DocumentWriteGuards,
        { provide: DocumentLocksRepository, useValue: locks },
        { provide: DocumentsService, useValue: documents },
        { provide: DocumentAccessPolicy, useValue: policy },
        { provide: Transactions, useValue: { run: (work: (tx: Tx) => Promise<unknown>) => work(tx) } },
        { provide: AuditTrail, useValue: trail },
        { provide: Clock, useValue: { now: () => NOW } },
        { provide: governanceConfig.KEY, useValue: { lockMaxMinutes: 480 } },
      ],
    }).compile();
    service = module.get(DocumentLocksService);
  });

  it('refuses another writer 423 while the lock holds, and lets the holder extend it', async () => {
    locks.find.mockResolvedValue(held('bob', minutesFromNow(10)));
    await expect(service.lock('d1', 30, user('alice'), audit)).rejects.toMatchObject({ code: 'document_locked' });
    expect(locks.put).not.toHaveBeenCalled();
    await service.lock('d1', 30, user('bob'), audit);
    expect(locks.put).toHaveBeenCalledWith(
      tx,
      expect.objectContaining({ holderId: 'bob', expiresAt: minutesFromNow(30) }),
    );
  });

  it('treats a lock past its expiry as no lock', async () => {
    locks.find.mockResolvedValue(held('bob', NOW));
    await service.lock('d1', undefined, user('alice'), audit);
    expect(locks.put).toHaveBeenCalledWith(
      tx,
      expect.objectContaining({ holderId: 'alice', expiresAt: minutesFromNow(60) }),
    );
    await expect(service.beforeChange(tx, { id: 'd1' } as Document, change(), user('carl'))).resolves.toBeUndefined();
  });

  it('refuses minutes over LOCK_MAX_MINUTES and writers the policy refuses', async () => {
    locks.find.mockResolvedValue(null);
    await expect(service.lock('d1', 481, user('alice'), audit)).rejects.toMatchObject({ code: 'validation_failed' });
    policy.canChange.mockReturnValue(false);
    await expect(service.lock('d1', 5, user('vera'), audit)).rejects.toMatchObject({ code: 'forbidden' });
    expect(locks.put).not.toHaveBeenCalled();
  });

  it("guards every document change: others are refused, the holder's releasing change removes the lock", async () => {
    locks.find.mockResolvedValue(held('bob', minutesFromNow(10)));
    const document = { id: 'd1' } as Document;
    await expect(service.beforeChange(tx, document, change(), user('alice'))).rejects.toMatchObject({
      code: 'document_locked',
    });
    await service.beforeChange(tx, document, change(), user('bob'));
    expect(locks.remove).not.toHaveBeenCalled();
    await service.beforeChange(tx, document, change(true), user('bob'));
    expect(locks.remove).toHaveBeenCalledWith(tx, 'd1');
    expect(trail.record).toHaveBeenCalledWith(
      tx,
      expect.anything(),
      expect.objectContaining({ action: 'document.unlocked' }),
    );
  });

  it('lets the holder, a project manager or documents:update release; 404 lock_not_found when none holds', async () => {
    locks.find.mockResolvedValue(held('bob', minutesFromNow(10)));
    await expect(service.unlock('d1', user('alice'), audit)).rejects.toMatchObject({ code: 'forbidden' });
    documents.readableAccess.mockResolvedValue({ projectRole: 'manager' });
    await service.unlock('d1', user('mara'), audit);
    expect(locks.remove).toHaveBeenCalledTimes(1);
    locks.find.mockResolvedValue(null);
    await expect(service.unlock('d1', user('mara'), audit)).rejects.toMatchObject({ code: 'lock_not_found' });
  });
});
