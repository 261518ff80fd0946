import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import type { Tx } from '../database/transactions.js';
import type { ChangeDescription } from './document-change.js';
import type { Document } from './entities/document.entity.js';

/**
 * A rule another feature adds to every document write (a lock, a legal hold). Each method runs in
 * the write's transaction, on the row as locked, and refuses by throwing an ApiError.
 */
export interface DocumentWriteGuard {
  /** Every change: metadata, status, new version, trash, restore. */
  beforeChange?(tx: Tx, document: Document, change: ChangeDescription, user: AuthenticatedUser): Promise<void>;
  /** Removal for good: permanent delete, purge. */
  beforeRemoval?(tx: Tx, documentIds: string[]): Promise<void>;
  /** The ids among `documentIds` this guard keeps from removal (what a batch purge must skip). */
  keeps?(tx: Tx, documentIds: string[]): Promise<string[]>;
}

/** Where features register their guards (in their onModuleInit), so documents never import them. */
@Injectable()
export class DocumentWriteGuards {
  private readonly guards: DocumentWriteGuard[] = [];

  register(guard: DocumentWriteGuard): void {
    this.guards.push(guard);
  }

  async beforeChange(tx: Tx, document: Document, change: ChangeDescription, user: AuthenticatedUser): Promise<void> {
    for (const guard of this.guards) await guard.beforeChange?.(tx, document, change, user);
  }

  async beforeRemoval(tx: Tx, documentIds: string[]): Promise<void> {
    if (documentIds.length === 0) return;
    for (const guard of this.guards) await guard.beforeRemoval?.(tx, documentIds);
  }

  /** The ids among `documentIds` that no guard keeps from removal. */
  async removable(tx: Tx, documentIds: string[]): Promise<string[]> {
    const kept = new Set<string>();
    for (const guard of this.guards) {
      if (documentIds.length > 0) for (const id of (await guard.keeps?.(tx, documentIds)) ?? []) kept.add(id);
    }
    return documentIds.filter((id) => !kept.has(id));
  }
}
