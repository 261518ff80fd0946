import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, IsNull, LessThanOrEqual, Repository } from 'typeorm';
import type { KeysetCursor } from '../common/pagination/keyset-cursor.js';
import type { Tx } from '../database/transactions.js';
import { Document } from '../documents/entities/document.entity.js';
import { User } from '../users/entities/user.entity.js';
import { DocumentReview, type ReviewState } from './entities/document-review.entity.js';
import { ReviewReviewer, type ReviewDecision } from './entities/review-reviewer.entity.js';

export type ReviewerWithName = ReviewReviewer & { username: string };

/** A review with its requester's name and its reviewers. */
export interface ReviewWithPeople {
  review: DocumentReview;
  requesterName: string;
  reviewers: ReviewerWithName[];
}

/** One line of "what awaits me": the caller's place in a review, the review and its document. */
export interface AssignedReview {
  reviewer: ReviewReviewer;
  review: DocumentReview;
  documentTitle: string;
  documentStatus: Document['status'];
}

/** At most this many reviews are read per turn of the reminder job. */
const DUE_BATCH = 100;

@Injectable()
export class ReviewsRepository {
  constructor(
    @InjectRepository(DocumentReview) private readonly reviews: Repository<DocumentReview>,
    @InjectRepository(ReviewReviewer) private readonly reviewers: Repository<ReviewReviewer>,
  ) {}

  async insert(tx: Tx, review: DocumentReview, reviewers: ReviewReviewer[]): Promise<void> {
    await tx.getRepository(DocumentReview).insert(review);
    await tx.getRepository(ReviewReviewer).insert(reviewers);
  }

  openReview(tx: Tx, documentId: string): Promise<DocumentReview | null> {
    return tx.getRepository(DocumentReview).findOneBy({ documentId, state: 'open' });
  }

  reviewersOf(tx: Tx, reviewId: string): Promise<ReviewReviewer[]> {
    return tx.getRepository(ReviewReviewer).findBy({ reviewId });
  }

  async recordDecision(
    tx: Tx,
    reviewId: string,
    reviewerId: string,
    answer: { decision: ReviewDecision; comment: string | null; at: Date },
  ): Promise<void> {
    await tx
      .getRepository(ReviewReviewer)
      .update(
        { reviewId, reviewerId },
        { decision: answer.decision, comment: answer.comment, decidedAt: answer.at, awaiting: false },
      );
  }

  async close(tx: Tx, reviewId: string, state: Exclude<ReviewState, 'open'>, at: Date): Promise<void> {
    await tx.getRepository(DocumentReview).update({ id: reviewId }, { state, closedAt: at });
    await tx.getRepository(ReviewReviewer).update({ reviewId }, { awaiting: false });
  }

  /** The document's newest review with its people, or null. */
  async latest(documentId: string): Promise<ReviewWithPeople | null> {
    const review = await this.reviews.findOne({ where: { documentId }, order: { createdAt: 'DESC', id: 'DESC' } });
    if (!review) return null;
    const [requester, reviewers] = await Promise.all([
      this.reviews.manager.findOneBy(User, { id: review.requestedBy }),
      this.reviewers
        .createQueryBuilder('r')
        .innerJoin(User, 'u', 'u.id = r.reviewerId')
        .addSelect('u.username', 'username')
        .where('r.reviewId = :reviewId', { reviewId: review.id })
        .orderBy('u.username', 'ASC')
        .getRawAndEntities<{ username: string }>(),
    ]);
    return {
      review,
      requesterName: requester?.username ?? '',
      reviewers: reviewers.entities.map((row, index) =>
        Object.assign(row, { username: reviewers.raw[index].username }),
      ),
    };
  }

  /**
   * One page of a reviewer's reviews, due first (undated last), then by review id; `awaiting`
   * picks the open ones they have not answered, or the others. `limit + 1` tells if more follow.
   */
  async assigned(
    reviewerId: string,
    awaiting: boolean,
    limit: number,
    after?: KeysetCursor,
  ): Promise<AssignedReview[]> {
    const query = this.reviewers
      .createQueryBuilder('r')
      .innerJoinAndMapOne('r.review', DocumentReview, 'v', 'v.id = r.reviewId')
      .innerJoin(Document, 'd', 'd.id = r.documentId AND d.deletedAt IS NULL')
      .addSelect(['d.title', 'd.status'])
      .where('r.reviewerId = :reviewerId AND r.awaiting = :awaiting', { reviewerId, awaiting })
      .orderBy('r.dueOrder', 'ASC')
      .addOrderBy('r.reviewId', 'ASC')
      .limit(limit + 1);
    if (after) {
      query.andWhere(
        new Brackets((keyset) =>
          keyset
            .where('r.dueOrder > :at', { at: after.at })
            .orWhere('r.dueOrder = :at AND r.reviewId > :id', { at: after.at, id: after.id }),
        ),
      );
    }
    const { entities, raw } = await query.getRawAndEntities<{
      r_reviewId: string;
      d_title: string;
      d_status: Document['status'];
    }>();
    return entities.map((row) => {
      const { review, ...reviewer } = row as ReviewReviewer & { review: DocumentReview };
      const documentRow = raw.find((candidate) => candidate.r_reviewId === row.reviewId)!;
      return {
        reviewer,
        review,
        documentTitle: documentRow.d_title,
        documentStatus: documentRow.d_status,
      };
    });
  }

  /** Open reviews whose reminder (a day before dueAt) or overdue notice (at dueAt) is due and not yet sent. */
  dueNotices(kind: 'reminder' | 'overdue', at: Date): Promise<DocumentReview[]> {
    const flag = kind === 'reminder' ? 'reminderSentAt' : 'overdueSentAt';
    return this.reviews.find({
      where: { state: 'open', dueAt: LessThanOrEqual(at), [flag]: IsNull() },
      order: { dueAt: 'ASC' },
      take: DUE_BATCH,
    });
  }

  /** Marks the notice sent; false when another turn (or instance) already did. */
  async markNotice(tx: Tx, reviewId: string, kind: 'reminder' | 'overdue', at: Date): Promise<boolean> {
    const flag = kind === 'reminder' ? 'reminderSentAt' : 'overdueSentAt';
    const result = await tx
      .getRepository(DocumentReview)
      .update({ id: reviewId, state: 'open', [flag]: IsNull() }, { [flag]: at });
    if ((result.affected ?? 0) !== 1) return false;
    // Past its date a review needs no reminder any more.
    if (kind === 'overdue') {
      await tx.getRepository(DocumentReview).update({ id: reviewId, reminderSentAt: IsNull() }, { reminderSentAt: at });
    }
    return true;
  }

  async awaitingReviewerIds(tx: Tx, reviewId: string): Promise<string[]> {
    const rows = await tx.getRepository(ReviewReviewer).findBy({ reviewId, awaiting: true });
    return rows.map((row) => row.reviewerId);
  }
}
