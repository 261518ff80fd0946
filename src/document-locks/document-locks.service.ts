import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Clock } from '../common/time/clock.js';
import { governanceConfig, type GovernanceConfig } from '../config/configuration.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentAccessPolicy } from '../documents/document-access.policy.js';
import type { ChangeDescription } from '../documents/document-change.js';
import { DocumentWriteGuards, type DocumentWriteGuard } from '../documents/document-write-guards.js';
import { DocumentsService } from '../documents/documents.service.js';
import type { Document } from '../documents/entities/document.entity.js';
import { DocumentLocksRepository, type HeldLock } from './document-locks.repository.js';

export const DEFAULT_LOCK_MINUTES = 60;

export function lockedError(lock: HeldLock): ApiError {
  return new ApiError(
    'document_locked',
    `The document is checked out by ${lock.holderName} until ${lock.expiresAt.toISOString()}; ` +
      `only ${lock.holderName} may change it until then.`,
  );
}

/**
 * Check-out locks: a writer takes a document for some minutes, and every write by anyone else
 * (metadata, new version, status, trash, restore) is refused 423 by the write guard registered here.
 * A lock past its expiry (by the Clock) is no lock; nothing has to remove it.
 */
@Injectable()
export class DocumentLocksService implements DocumentWriteGuard, OnModuleInit {
  constructor(
    private readonly locks: DocumentLocksRepository,
    private readonly documents: DocumentsService,
    private readonly policy: DocumentAccessPolicy,
    private readonly guards: DocumentWriteGuards,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    @Inject(governanceConfig.KEY) private readonly config: GovernanceConfig,
  ) {}

  onModuleInit(): void {
    this.guards.register(this);
  }

  /** The document's current lock, or null (readers only). */
  async get(documentId: string, user: AuthenticatedUser): Promise<HeldLock | null> {
    await this.documents.readableAccess(documentId, user);
    return this.active(await this.locks.find(documentId));
  }

  /** Takes or extends the caller's lock: whoever may change the document; 423 while another holds it. */
  async lock(
    documentId: string,
    minutes: number | undefined,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<HeldLock> {
    const access = await this.documents.readableAccess(documentId, user);
    if (!this.policy.canChange(user, access)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader (while a contributor of the project), a project manager or a user whose role grants ' +
          'documents:update may check this document out.',
      );
    }
    const length = minutes ?? DEFAULT_LOCK_MINUTES;
    if (length > this.config.lockMaxMinutes) {
      throw new ApiError(
        'validation_failed',
        `minutes must be at most ${this.config.lockMaxMinutes} (LOCK_MAX_MINUTES).`,
      );
    }
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + length * 60_000);
    await this.transactions.run(async (tx) => {
      const current = this.active(await this.locks.find(documentId, tx, { forUpdate: true }), now);
      if (current && current.holderId !== user.id) throw lockedError(current);
      await this.locks.put(tx, { documentId, holderId: user.id, acquiredAt: current?.acquiredAt ?? now, expiresAt });
      await this.audit.record(tx, audit, {
        action: 'document.locked',
        targetType: 'document',
        targetId: documentId,
        changes: { lockedUntil: { from: current?.expiresAt.toISOString() ?? null, to: expiresAt.toISOString() } },
      });
    });
    return (await this.locks.find(documentId))!;
  }

  /** Releases the lock: its holder, a manager of the project or a holder of documents:update; 404 when none. */
  async unlock(documentId: string, user: AuthenticatedUser, audit: AuditContext): Promise<void> {
    const { projectRole } = await this.documents.readableAccess(documentId, user);
    await this.transactions.run(async (tx) => {
      const current = this.active(await this.locks.find(documentId, tx, { forUpdate: true }));
      if (!current) throw new ApiError('lock_not_found', `The document ${documentId} is not checked out.`);
      const allowed =
        current.holderId === user.id || projectRole === 'manager' || hasPermission(user, 'documents', 'update');
      if (!allowed) {
        throw new ApiError(
          'forbidden',
          `Only ${current.holderName} (the holder), a project manager or a user whose role grants documents:update may release this lock.`,
        );
      }
      await this.release(tx, current, audit);
    });
  }

  /** The write guard: refuses others' writes while a lock holds; the holder's ?unlock=true version releases it. */
  async beforeChange(tx: Tx, document: Document, change: ChangeDescription, user: AuthenticatedUser): Promise<void> {
    const current = this.active(await this.locks.find(document.id, tx));
    if (!current) return;
    if (current.holderId !== user.id) throw lockedError(current);
    if (change.releaseLock) await this.release(tx, current, { actorId: user.id, ip: null, requestId: null });
  }

  private async release(tx: Tx, lock: HeldLock, audit: AuditContext): Promise<void> {
    await this.locks.remove(tx, lock.documentId);
    await this.audit.record(tx, audit, {
      action: 'document.unlocked',
      targetType: 'document',
      targetId: lock.documentId,
      changes: { lockedBy: { from: lock.holderId, to: null } },
    });
  }

  private active(lock: HeldLock | null, now = this.clock.now()): HeldLock | null {
    return lock && lock.expiresAt.getTime() > now.getTime() ? lock : null;
  }
}
