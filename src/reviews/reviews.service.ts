import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';
import { Clock } from '../common/time/clock.js';
import { governanceConfig, type GovernanceConfig } from '../config/configuration.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentAccessPolicy } from '../documents/document-access.policy.js';
import type { ChangeDescription } from '../documents/document-change.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import { DocumentWriteGuards, type DocumentWriteGuard } from '../documents/document-write-guards.js';
import { DocumentWrites } from '../documents/document-writes.js';
import { DocumentsService } from '../documents/documents.service.js';
import type { Document } from '../documents/entities/document.entity.js';
import type { DomainEventType } from '../events/domain-event.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { DocumentReview } from './entities/document-review.entity.js';
import { NO_DUE_DATE, type ReviewDecision, type ReviewReviewer } from './entities/review-reviewer.entity.js';
import { ReviewsRepository, type AssignedReview, type ReviewWithPeople } from './reviews.repository.js';

export interface ReviewRequest {
  reviewers: string[];
  dueAt?: string;
  message?: string;
}

export interface AssignedPage {
  reviews: AssignedReview[];
  nextCursor: string | null;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * Reviews with people and dates: a request moves a draft to in_review with named reviewers; their
 * answers publish it (every approval, or the first with REVIEW_POLICY=any) or return it to draft (a
 * rejection). Status moves go through DocumentWrites, so history, rowVersion, events and the other
 * features' write guards stay the one way; a move by the bare status route cancels the open review.
 */
@Injectable()
export class ReviewsService implements DocumentWriteGuard, OnModuleInit {
  constructor(
    private readonly reviews: ReviewsRepository,
    private readonly documents: DocumentsService,
    private readonly writes: DocumentWrites,
    private readonly policy: DocumentAccessPolicy,
    private readonly participants: DocumentParticipants,
    private readonly guards: DocumentWriteGuards,
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditTrail,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @Inject(governanceConfig.KEY) private readonly config: GovernanceConfig,
  ) {}

  onModuleInit(): void {
    this.guards.register(this);
  }

  async request(
    documentId: string,
    input: ReviewRequest,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<ReviewWithPeople> {
    const now = this.clock.now();
    const dueAt = input.dueAt === undefined ? null : new Date(input.dueAt);
    if (dueAt && dueAt.getTime() <= now.getTime()) {
      throw new ApiError('validation_failed', 'dueAt must be in the future.');
    }
    const reviewerIds = [...new Set(input.reviewers.map((id) => id.toLowerCase()))];
    await this.documents.readableAccess(documentId, user);
    const readers = new Set(await this.participants.readersAmong(documentId, reviewerIds));
    const unable = reviewerIds.filter((id) => !readers.has(id));
    if (unable.length) {
      throw new ApiError('validation_failed', `reviewers: ${unable.join(', ')} cannot read this document.`);
    }
    const review: DocumentReview = {
      id: randomUUID(),
      documentId,
      requestedBy: user.id,
      message: input.message ?? '',
      state: 'open',
      dueAt,
      createdAt: now,
      closedAt: null,
      reminderSentAt: null,
      overdueSentAt: null,
    };
    await this.writes.change(documentId, user, async (found, tx) => {
      const current = this.policy.readable(documentId, found, user);
      if (current.status !== 'draft') {
        throw new ApiError('invalid_transition', `A review starts from draft; the document is ${current.status}.`);
      }
      if (!this.policy.canChange(user, found!)) {
        throw new ApiError(
          'forbidden',
          'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:update may submit this document for review.',
        );
      }
      await this.reviews.insert(
        tx,
        review,
        reviewerIds.map((reviewerId) => ({
          reviewId: review.id,
          reviewerId,
          documentId,
          awaiting: true,
          dueOrder: dueAt ?? NO_DUE_DATE,
          decision: null,
          comment: null,
          decidedAt: null,
        })),
      );
      for (const reviewerId of reviewerIds) {
        await this.notify(tx, 'review.requested', review, current, reviewerId, user.id, { message: review.message });
      }
      await this.audit.record(tx, audit, {
        action: 'review.requested',
        targetType: 'document',
        targetId: documentId,
        changes: {
          reviewers: { from: null, to: reviewerIds },
          dueAt: { from: null, to: dueAt?.toISOString() ?? null },
        },
      });
      return { current, change: statusChange(current, 'in_review', review.id) };
    });
    return (await this.reviews.latest(documentId))!;
  }

  async decide(
    documentId: string,
    decision: ReviewDecision,
    comment: string | undefined,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<ReviewWithPeople> {
    await this.writes.change(documentId, user, async (found, tx) => {
      const current = this.policy.readable(documentId, found, user);
      const review = await this.reviews.openReview(tx, documentId);
      if (!review) throw new ApiError('review_not_found', `The document ${documentId} has no open review.`);
      const reviewers = await this.reviews.reviewersOf(tx, review.id);
      const mine = reviewers.find((reviewer) => reviewer.reviewerId === user.id);
      if (!mine) throw new ApiError('forbidden', 'Only the reviewers named in the open review may answer it.');
      if (mine.decision) throw new ApiError('conflict', `You already answered this review (${mine.decision}).`);
      const now = this.clock.now();
      await this.reviews.recordDecision(tx, review.id, user.id, { decision, comment: comment ?? null, at: now });
      await this.notify(tx, 'review.decided', review, current, review.requestedBy, user.id, {
        decision,
        comment: comment ?? null,
      });
      await this.audit.record(tx, audit, {
        action: 'review.decided',
        targetType: 'document',
        targetId: documentId,
        changes: { decision: { from: null, to: decision } },
      });
      const outcome = this.outcome(reviewers, user.id, decision);
      if (!outcome) return { current };
      await this.reviews.close(tx, review.id, outcome, now);
      return { current, change: statusChange(current, outcome === 'approved' ? 'published' : 'draft', review.id) };
    });
    return (await this.reviews.latest(documentId))!;
  }

  /** The document's newest review (readers only); 404 when it never had one. */
  async get(documentId: string, user: AuthenticatedUser): Promise<ReviewWithPeople> {
    await this.documents.readableAccess(documentId, user);
    const found = await this.reviews.latest(documentId);
    if (!found) throw new ApiError('review_not_found', `The document ${documentId} has never been reviewed.`);
    return found;
  }

  async assigned(user: AuthenticatedUser, open: boolean, limit: number, cursor?: string): Promise<AssignedPage> {
    const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor);
    const rows = await this.reviews.assigned(user.id, open, limit, after);
    const reviews = rows.slice(0, limit);
    const last = reviews.at(-1);
    return {
      reviews,
      nextCursor:
        rows.length > limit && last ? encodeKeysetCursor({ at: last.reviewer.dueOrder, id: last.review.id }) : null,
    };
  }

  /** The write guard: a status move or trash outside the review's own path cancels its open review. */
  async beforeChange(tx: Tx, document: Document, change: ChangeDescription): Promise<void> {
    if (change.payload?.reviewId !== undefined) return;
    if (change.values.status === undefined && change.action !== 'deleted') return;
    const review = await this.reviews.openReview(tx, document.id);
    if (review) await this.reviews.close(tx, review.id, 'cancelled', this.clock.now());
  }

  /** One turn of the reminder job: overdue notices at dueAt, reminders a day before; each once per review. */
  async sendDueNotices(): Promise<number> {
    const now = this.clock.now();
    let sent = 0;
    for (const review of await this.reviews.dueNotices('overdue', now)) {
      if (await this.sendNotice(review, 'overdue', now)) sent++;
    }
    const reminders = await this.reviews.dueNotices('reminder', new Date(now.getTime() + DAY_MS));
    for (const review of reminders.filter((candidate) => candidate.dueAt!.getTime() > now.getTime())) {
      if (await this.sendNotice(review, 'reminder', now)) sent++;
    }
    return sent;
  }

  private sendNotice(review: DocumentReview, kind: 'reminder' | 'overdue', now: Date): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      if (!(await this.reviews.markNotice(tx, review.id, kind, now))) return false;
      for (const reviewerId of await this.reviews.awaitingReviewerIds(tx, review.id)) {
        await this.notify(tx, `review.${kind}`, review, null, reviewerId, review.requestedBy);
      }
      return true;
    });
  }

  /** approved, rejected, or null while answers are still awaited (REVIEW_POLICY). */
  private outcome(
    reviewers: ReviewReviewer[],
    deciderId: string,
    decision: ReviewDecision,
  ): 'approved' | 'rejected' | null {
    if (decision === 'reject') return 'rejected';
    if (this.config.reviewPolicy === 'any') return 'approved';
    const approvedByOthers = reviewers.every(
      (reviewer) => reviewer.reviewerId === deciderId || reviewer.decision === 'approve',
    );
    return approvedByOthers ? 'approved' : null;
  }

  /** An event for one person alone (subjectUserId): a reviewer, or the requester. */
  private notify(
    tx: Tx,
    type: DomainEventType,
    review: DocumentReview,
    document: Document | null,
    recipientId: string,
    actorId: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    return this.outbox.append(tx, {
      type,
      actorId,
      projectId: document?.projectId ?? null,
      documentId: review.documentId,
      subjectUserId: recipientId,
      payload: {
        ...(document ? { title: document.title } : {}),
        reviewId: review.id,
        dueAt: review.dueAt?.toISOString() ?? null,
        ...extra,
      },
    });
  }
}

function statusChange(current: Document, to: Document['status'], reviewId: string): ChangeDescription {
  return {
    action: 'status_changed',
    event: 'document.status_changed',
    values: { status: to },
    payload: { from: current.status, to, reviewId },
  };
}
