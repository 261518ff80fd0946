import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Clock } from '../common/time/clock.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentWriteGuards } from '../documents/document-write-guards.js';
import type { CreateLegalHoldDto } from './dto/legal-hold.dto.js';
import { LegalHold } from './entities/legal-hold.entity.js';
import { LegalHoldsRepository, type CoveringHold, type HoldWithDocuments } from './legal-holds.repository.js';

/** Documents a hold's answer lists at most (documentCount says how many it covers). */
export const HOLD_DOCUMENTS_LISTED = 1_000;

/**
 * Legal holds: the one place that decides whether a document may be removed. Registered as a
 * document write guard, it refuses trash, purge and permanent delete of held documents (409
 * legal_hold naming the hold); metadata changes and new versions stay allowed. Retention and the
 * scheduled trash purge ask `held` and skip what it names.
 */
@Injectable()
export class LegalHoldsService implements OnModuleInit {
  constructor(
    private readonly holds: LegalHoldsRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly guards: DocumentWriteGuards,
  ) {}

  onModuleInit(): void {
    this.guards.register({
      beforeChange: async (tx, document, change) => {
        if (change.action === 'deleted') await this.refuseIfHeld(tx, [document.id]);
      },
      beforeRemoval: (tx, documentIds) => this.refuseIfHeld(tx, documentIds),
      keeps: async (tx, documentIds) => [...(await this.held(tx, documentIds)).keys()],
    });
  }

  /** The held documents among `documentIds`, each with one hold that covers it. */
  async held(tx: Tx, documentIds: string[]): Promise<Map<string, CoveringHold>> {
    const covering = await this.holds.covering(tx, documentIds);
    return new Map(covering.map((hold) => [hold.documentId, hold]));
  }

  async create(body: CreateLegalHoldDto, user: AuthenticatedUser, context: AuditContext): Promise<HoldWithDocuments> {
    const documentIds = [...new Set(body.documentIds ?? [])];
    const projectId = body.projectId ?? null;
    if (documentIds.length === 0 && projectId === null) {
      throw new ApiError('validation_failed', 'A legal hold names documentIds, a projectId, or both.');
    }
    const hold = await this.transactions.run(async (tx) => {
      if (projectId !== null && !(await this.holds.projectExists(tx, projectId))) {
        throw new ApiError('project_not_found', `No project has the id ${projectId}.`);
      }
      const existing = await this.holds.existingDocuments(tx, documentIds);
      const missing = documentIds.find((id) => !existing.has(id));
      if (missing) throw new ApiError('document_not_found', `No document has the id ${missing}.`);
      const created = Object.assign(new LegalHold(), {
        id: randomUUID(),
        name: body.name,
        reason: body.reason,
        projectId,
        createdBy: user.id,
        createdAt: this.clock.now(),
      } satisfies LegalHold);
      await this.holds.insert(tx, created, documentIds);
      await this.audit.record(tx, context, {
        action: 'legal_hold.created',
        targetType: 'legal_hold',
        targetId: created.id,
        changes: {
          name: { from: null, to: created.name },
          reason: { from: null, to: created.reason },
          projectId: { from: null, to: projectId },
          documentIds: { from: null, to: documentIds },
        },
      });
      return created;
    });
    return this.withDocuments(hold);
  }

  async release(id: string, context: AuditContext): Promise<void> {
    await this.transactions.run(async (tx) => {
      const hold = await this.holds.delete(tx, id);
      if (!hold) throw notFound(id);
      await this.audit.record(tx, context, {
        action: 'legal_hold.released',
        targetType: 'legal_hold',
        targetId: id,
        changes: { name: { from: hold.name, to: null }, projectId: { from: hold.projectId, to: null } },
      });
    });
  }

  async list(): Promise<HoldWithDocuments[]> {
    return Promise.all((await this.holds.list()).map((hold) => this.withDocuments(hold)));
  }

  async get(id: string): Promise<HoldWithDocuments> {
    const hold = await this.holds.find(id);
    if (!hold) throw notFound(id);
    return this.withDocuments(hold);
  }

  private async withDocuments(hold: LegalHold): Promise<HoldWithDocuments> {
    const { documents, total } = await this.holds.documentsOf(hold, HOLD_DOCUMENTS_LISTED);
    return { hold, documents, documentCount: total };
  }

  private async refuseIfHeld(tx: Tx, documentIds: string[]): Promise<void> {
    const [first] = (await this.held(tx, documentIds)).values();
    if (first) {
      throw new ApiError(
        'legal_hold',
        `The document ${first.documentId} is under the legal hold "${first.holdName}" (${first.holdId}): it cannot be deleted, purged or retained away until the hold is released.`,
      );
    }
  }
}

function notFound(id: string): ApiError {
  return new ApiError('legal_hold_not_found', `No legal hold has the id ${id}.`);
}
