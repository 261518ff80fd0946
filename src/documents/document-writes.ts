import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { documentChange, type ChangeDescription } from './document-change.js';
import { DocumentFields } from './document-fields.js';
import { DocumentWriteGuards } from './document-write-guards.js';
import { DocumentsRepository, type DocumentWithAccess } from './documents.repository.js';
import type { Document } from './entities/document.entity.js';

/** What a write decided: the document it read, and the change to make (none: answer it as it is). */
export interface WriteDecision {
  current: Document;
  change?: ChangeDescription;
  /** More work for the change's transaction, after the change (e.g. settling an upload's file). */
  alsoInTx?: (tx: Tx) => Promise<void>;
}

/**
 * The one way a document changes: in one transaction (Transactions' retry policy), read it under
 * a row lock, let `decide` check the rules (and If-Match) and describe the change, then apply it
 * conditional on the rowVersion it was read with. `decide` gets the transaction for the reads and
 * writes of a feature whose rule needs them (a review's decisions), serialised by the row lock. Other features' rules (DocumentWriteGuards) run
 * between the decision and the write.
 */
@Injectable()
export class DocumentWrites {
  constructor(
    private readonly transactions: Transactions,
    private readonly documents: DocumentsRepository,
    private readonly guards: DocumentWriteGuards,
    private readonly fields: DocumentFields,
  ) {}

  change(
    documentId: string,
    user: AuthenticatedUser,
    decide: (found: DocumentWithAccess | null, tx: Tx) => WriteDecision | Promise<WriteDecision>,
    { trashed = false } = {},
  ): Promise<Document> {
    return this.transactions.run(async (tx: Tx) => {
      const found = await this.documents.findForChange(tx, documentId, user.id, trashed);
      const { current, change, alsoInTx } = await decide(found, tx);
      if (!change) return current;
      await this.guards.beforeChange(tx, current, change, user);
      const planned = documentChange(current, user, change);
      // decide() answers only for a document that was found.
      await this.documents.applyChange(tx, planned, found!.participation);
      if (planned.values.fields !== undefined) {
        await this.fields.store(tx, current.id, planned.document.documentTypeId, planned.document.fields ?? {});
      }
      await alsoInTx?.(tx);
      return planned.document;
    });
  }
}
