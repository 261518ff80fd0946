import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import { DocumentReview } from './document-review.entity.js';

export const REVIEW_DECISIONS = ['approve', 'reject'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/** A review's date when it has none: such reviews list after every dated one. */
export const NO_DUE_DATE = new Date('9999-12-31T00:00:00.000Z');

/**
 * One reviewer of a review and their answer. `awaiting` (open review, no answer yet) and
 * `dueOrder` (the review's dueAt, else NO_DUE_DATE) serve the "awaits me, due first" list from one index.
 */
@Entity({ name: 'document_review_reviewers' })
@Index('IDX_document_review_reviewers_inbox', ['reviewerId', 'awaiting', 'dueOrder', 'reviewId'])
export class ReviewReviewer {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => DocumentReview, { name: 'FK_document_review_reviewers_review', onDelete: 'CASCADE' })
  reviewId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_document_review_reviewers_reviewer', onDelete: 'RESTRICT' })
  reviewerId: string;

  @Column({ type: 'varchar', length: 36 })
  documentId: string;

  @Column({ type: 'boolean' })
  awaiting: boolean;

  @Column({ type: 'datetime', precision: 3 })
  dueOrder: Date;

  @Column({ type: 'varchar', length: 16, nullable: true })
  decision: ReviewDecision | null;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  comment: string | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  decidedAt: Date | null;
}
