import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Clock } from '../common/time/clock.js';
import { Transactions } from '../database/transactions.js';
import { retentionOf } from '../document-types/document-types.service.js';
import type { DocumentType } from '../document-types/entities/document-type.entity.js';
import type { RetentionPolicy } from '../document-types/retention-policy.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import { DocumentTrashService } from '../documents/document-trash.service.js';
import { DocumentsService } from '../documents/documents.service.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { LegalHoldsService } from '../legal-holds/legal-holds.service.js';
import { ClusterJobs } from '../scheduling/cluster-jobs.js';
import { RetentionApplication } from './entities/retention-application.entity.js';
import { RetentionRepository, type RetentionCandidate } from './retention.repository.js';

export const RETENTION_JOB = 'retention';
/** How often retention runs (once per cluster). */
export const RETENTION_INTERVAL_MS = 60 * 60_000;
const FIRST_RUN_DELAY_MS = 90_000;
/** Documents read per statement. */
const BATCH = 100;
const DAY_MS = 86_400_000;

export interface RetentionRun {
  applied: number;
  held: number;
  refused: number;
}

/**
 * Applies document types' retention policies: a scheduled job (once per cluster) finds the
 * documents whose time has come, skips those under legal hold (they wait for the release), acts
 * through the documents feature in the name of the user who set the policy, then records the
 * application (once per document), an audit event and a notification to each participant.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    private readonly retention: RetentionRepository,
    private readonly transactions: Transactions,
    private readonly holds: LegalHoldsService,
    private readonly documents: DocumentsService,
    private readonly trash: DocumentTrashService,
    private readonly participants: DocumentParticipants,
    private readonly audit: AuditTrail,
    private readonly outbox: OutboxRepository,
    private readonly clock: Clock,
    private readonly jobs: ClusterJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: RETENTION_JOB,
      everyMs: RETENTION_INTERVAL_MS,
      firstDelayMs: FIRST_RUN_DELAY_MS,
      run: async () => {
        const { applied, held, refused } = await this.run();
        if (applied || refused) this.logger.log(`Retention applied ${applied}, held back ${held}, refused ${refused}`);
      },
    });
  }

  onApplicationShutdown(): void {
    this.jobs.cancel(RETENTION_JOB);
  }

  async run(): Promise<RetentionRun> {
    const result: RetentionRun = { applied: 0, held: 0, refused: 0 };
    const now = this.clock.now();
    for (const type of await this.retention.typesWithRetention()) {
      const policy = retentionOf(type);
      if (!policy) continue;
      const cutoff = new Date(now.getTime() - policy.days * DAY_MS);
      let afterId = '';
      for (;;) {
        const batch = await this.retention.candidates(type.id, policy, cutoff, afterId, BATCH);
        if (batch.length === 0) break;
        afterId = batch.at(-1)!.id;
        const held = await this.transactions.run((tx) =>
          this.holds.held(
            tx,
            batch.map((document) => document.id),
          ),
        );
        for (const document of batch) {
          if (held.has(document.id)) result.held++;
          else if (await this.apply(type, policy, document)) result.applied++;
          else result.refused++;
        }
        if (batch.length < BATCH) break;
      }
    }
    return result;
  }

  /** Acts on one document; false when the documents feature refused (a hold placed meanwhile, a status moved). */
  private async apply(type: DocumentType, policy: RetentionPolicy, document: RetentionCandidate): Promise<boolean> {
    const actor = retentionActor(type.retentionSetBy!);
    const context: AuditContext = { actorId: actor.id, ip: null, requestId: null };
    // Read before a purge takes them away with the document.
    const participants = await this.participants.of(document.id);
    try {
      // The participants hear of it by retention's own event below, not again by the change's.
      const toldSeparately = { toldSeparately: participants };
      if (policy.action === 'archive') {
        await this.documents.changeStatus(document.id, 'archived', actor, undefined, toldSeparately);
      } else if (policy.action === 'trash') await this.trash.trash(document.id, actor, undefined, toldSeparately);
      else await this.trash.purge(document.id, actor, undefined, context);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.logger.warn(`Retention of document ${document.id} refused (${error.code})`);
      return false;
    }
    const appliedAt = this.clock.now();
    await this.transactions.run(async (tx) => {
      await this.retention.record(
        tx,
        Object.assign(new RetentionApplication(), {
          documentId: document.id,
          documentTypeId: type.id,
          action: policy.action,
          appliedAt,
        }),
      );
      await this.audit.record(tx, context, {
        action: 'document.retention_applied',
        targetType: 'document',
        targetId: document.id,
        changes: { retention: { from: null, to: { ...policy, documentTypeId: type.id, title: document.title } } },
      });
      for (const userId of participants) {
        await this.outbox.append(
          tx,
          {
            type: 'document.retention_applied',
            actorId: actor.id,
            projectId: document.projectId,
            documentId: policy.action === 'purge' ? null : document.id,
            subjectUserId: userId,
            payload: { title: document.title, action: policy.action, days: policy.days, from: policy.from },
          },
          appliedAt,
        );
      }
    });
    return true;
  }
}

/** The user who set the policy, with the document rights retention needs and nothing else. */
function retentionActor(userId: string): AuthenticatedUser {
  return {
    id: userId,
    username: 'retention',
    roles: [{ name: 'retention', permissions: { documents: ['read', 'update', 'delete', 'publish', 'purge'] } }],
  };
}
