import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';

export const REVIEW_STATES = ['open', 'approved', 'rejected', 'cancelled'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/**
 * One request to review a document: open while the document is in_review, then approved (it was
 * published), rejected (back to draft) or cancelled (moved by the bare status route). Declares
 * exactly what migration 1763800000130 creates.
 */
@Entity({ name: 'document_reviews' })
@Index('IDX_document_reviews_document', ['documentId', 'createdAt'])
@Index('IDX_document_reviews_due', ['state', 'dueAt'])
export class DocumentReview {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_reviews_document', onDelete: 'CASCADE' })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  requestedBy: string;

  @Column({ type: 'varchar', length: 2000 })
  message: string;

  @Column({ type: 'varchar', length: 16 })
  state: ReviewState;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  dueAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  closedAt: Date | null;

  /** When review.reminder was recorded (once, a day before dueAt). */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  reminderSentAt: Date | null;

  /** When review.overdue was recorded (once, at dueAt). */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  overdueSentAt: Date | null;
}
