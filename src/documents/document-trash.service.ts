import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { CLI_AUDIT_CONTEXT, type AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { storageConfig } from '../config/configuration.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { StoredFiles } from '../storage/stored-files.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { checkIfMatch } from './document-change.js';
import { DocumentSearchRepository } from './document-search.repository.js';
import { DocumentWriteGuards } from './document-write-guards.js';
import { DocumentWrites } from './document-writes.js';
import { DocumentsRepository } from './documents.repository.js';
import type { ListTrashQueryDto } from './dto/list-documents-query.dto.js';
import type { Document } from './entities/document.entity.js';

/** Documents purged per transaction. */
const PURGE_BATCH = 100;

export interface PurgeResult {
  documents: number;
  files: number;
}

/** The trash: deleting (to the trash or for good), listing, restoring, and the purge of old entries. */
@Injectable()
export class DocumentTrashService {
  constructor(
    private readonly documents: DocumentsRepository,
    private readonly search: DocumentSearchRepository,
    private readonly writes: DocumentWrites,
    private readonly transactions: Transactions,
    private readonly policy: DocumentAccessPolicy,
    private readonly audit: AuditTrail,
    private readonly files: StoredFiles,
    private readonly guards: DocumentWriteGuards,
    @Inject(storageConfig.KEY) private readonly storage: ConfigType<typeof storageConfig>,
  ) {}

  /** To the trash (every route then answers 404 for it); `eventPayload` joins its event's payload. */
  async trash(
    documentId: string,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
    eventPayload: Record<string, unknown> = {},
  ): Promise<void> {
    await this.writes.change(documentId, user, (found) => {
      const current = this.policy.readable(documentId, found, user);
      if (!this.policy.canDelete(user, found!)) {
        throw new ApiError(
          'forbidden',
          'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:delete may delete this document.',
        );
      }
      checkIfMatch(ifMatch, current);
      const deletedAt = new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1));
      return {
        current,
        change: {
          action: 'deleted',
          event: 'document.deleted',
          values: { deletedAt, deletedBy: user.id },
          changes: {},
          payload: eventPayload,
        },
      };
    });
  }

  /** Removed at once, live or trashed, with its versions, history and unreferenced files (documents:purge). */
  async purge(
    documentId: string,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
    context: AuditContext,
  ): Promise<void> {
    const { hashes } = await this.transactions.run(async (tx) => {
      const found =
        (await this.documents.find(documentId, user.id, { lock: true }, tx)) ??
        (await this.documents.find(documentId, user.id, { trashed: true, lock: true }, tx));
      const current = this.policy.readable(documentId, found, user);
      if (!this.policy.canPurge(user)) {
        throw new ApiError(
          'forbidden',
          'Only a user whose role grants documents:purge may delete a document permanently.',
        );
      }
      checkIfMatch(ifMatch, current);
      return this.removeForGood(tx, [documentId], true, context);
    });
    await this.files.collect(hashes);
  }

  /** The trash: deleted documents the caller could delete, last deleted first. */
  async list(query: ListTrashQueryDto, user: AuthenticatedUser): Promise<{ documents: Document[]; total: number }> {
    const everything = hasPermission(user, 'documents', 'delete');
    const total = await this.search.trashCount(everything, user.id);
    const offset = ((query.page ?? 1) - 1) * query.limit;
    if (offset >= total) return { documents: [], total };
    return { documents: await this.search.trashPage(everything, user.id, query.limit, offset), total };
  }

  /** Takes a document out of the trash (whoever could delete it may restore it). */
  restore(documentId: string, user: AuthenticatedUser): Promise<Document> {
    return this.writes.change(
      documentId,
      user,
      (found) => {
        // Someone who could not delete it does not learn it is in the trash.
        if (!found || !this.policy.canRead(user, found) || !this.policy.canDelete(user, found)) {
          throw new ApiError('document_not_found', `No deleted document has the id ${documentId}.`);
        }
        return {
          current: found.document,
          change: {
            action: 'restored',
            event: 'document.restored',
            values: { deletedAt: null, deletedBy: null },
            changes: {},
          },
        };
      },
      { trashed: true },
    );
  }

  /**
   * Removes documents that have been in the trash longer than TRASH_RETENTION_DAYS, with their
   * versions and history, then every stored file nothing names (StoredFiles.sweep: also what a
   * crash left between placing a file and committing its row).
   */
  async purgeExpired(now = new Date()): Promise<PurgeResult> {
    const cutoff = new Date(now.getTime() - this.storage.trashRetentionDays * 86_400_000);
    const result: PurgeResult = { documents: 0, files: 0 };
    // Documents a guard keeps (a legal hold) stay in the trash; the next batches look past them.
    const kept = new Set<string>();
    for (;;) {
      const ids = await this.documents.purgeCandidates(cutoff, PURGE_BATCH, [...kept]);
      if (ids.length === 0) break;
      const { documents, hashes } = await this.transactions.run(async (tx) => {
        const removable = await this.guards.removable(tx, ids);
        for (const id of ids) if (!removable.includes(id)) kept.add(id);
        return this.removeForGood(tx, removable, false, CLI_AUDIT_CONTEXT);
      });
      result.documents += documents;
      result.files += await this.files.collect(hashes);
      if (ids.length < PURGE_BATCH) break;
    }
    result.files += await this.files.sweep();
    return result;
  }

  /** Deletes the documents and records who removed what; answers the file hashes nothing references now. */
  private async removeForGood(
    tx: Tx,
    ids: string[],
    evenLive: boolean,
    context: AuditContext,
  ): Promise<{ documents: number; hashes: string[] }> {
    await this.guards.beforeRemoval(tx, ids);
    const { removed, hashes } = await this.documents.remove(tx, ids, evenLive);
    for (const document of removed) {
      await this.audit.record(tx, context, {
        action: 'document.purged',
        targetType: 'document',
        targetId: document.id,
        changes: {
          title: { from: document.title, to: null },
          projectId: { from: document.projectId, to: null },
        },
      });
    }
    return { documents: removed.length, hashes };
  }
}
