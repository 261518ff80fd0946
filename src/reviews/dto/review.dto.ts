import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  Min,
} from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';
import { NoControlCharactersExceptWhitespace, TextLength } from '../../common/validation/text.validators.js';
import { DOCUMENT_STATUSES, type DocumentStatus } from '../../documents/entities/document.entity.js';
import { REVIEW_STATES, type ReviewState } from '../entities/document-review.entity.js';
import { REVIEW_DECISIONS, type ReviewDecision } from '../entities/review-reviewer.entity.js';
import type { AssignedReview, ReviewWithPeople } from '../reviews.repository.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

export const REVIEW_TEXT_MAX = 2000;
export const REVIEWERS_MAX = 20;

const UUID_EXAMPLE = '0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b';

export class RequestReviewDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: REVIEWERS_MAX,
    example: [DEMO_EXAMPLE.userId],
    description: 'Ids of the users asked to review; each must be able to read the document.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REVIEWERS_MAX)
  @IsUUID('all', { each: true, message: 'each reviewer must be a user id (UUID)' })
  readonly reviewers: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-04T17:00:00.000Z',
    description: 'When the answers are due (in the future): reminders go out a day before, overdue notices at it.',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'dueAt must be an ISO 8601 date-time' })
  readonly dueAt?: string;

  @ApiPropertyOptional({ maxLength: REVIEW_TEXT_MAX, example: 'Please check the figures on page 3.' })
  @IsOptional()
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, REVIEW_TEXT_MAX)
  @IsString()
  readonly message?: string;
}

export class ReviewDecisionDto {
  @ApiProperty({ enum: REVIEW_DECISIONS, example: 'approve' })
  @IsIn(REVIEW_DECISIONS, { message: 'decision must be approve or reject' })
  readonly decision: ReviewDecision;

  @ApiPropertyOptional({ maxLength: REVIEW_TEXT_MAX, example: 'The totals on page 3 do not add up.' })
  @IsOptional()
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, REVIEW_TEXT_MAX)
  @IsString()
  readonly comment?: string;
}

export class ReviewPersonDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: UUID_EXAMPLE })
  id: string;

  @ApiProperty({ maxLength: 255, example: 'bob' })
  username: string;
}

export class ReviewerDto extends ReviewPersonDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 16,
    example: 'approve',
    description: 'approve or reject; null: not answered',
  })
  decision: ReviewDecision | null;

  @ApiProperty({ type: 'string', maxLength: REVIEW_TEXT_MAX, nullable: true, example: null })
  comment: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', maxLength: 30, nullable: true, example: null })
  decidedAt: string | null;
}

export class ReviewDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '5f0c2b7e-8a1d-4c3e-9b2f-1a2b3c4d5e6f' })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  documentId: string;

  @ApiProperty({
    enum: REVIEW_STATES,
    example: 'open',
    description: 'open; approved (published), rejected (back to draft), cancelled (moved by the status route)',
  })
  state: ReviewState;

  @ApiProperty({ type: ReviewPersonDto })
  requestedBy: ReviewPersonDto;

  @ApiProperty({ maxLength: REVIEW_TEXT_MAX, example: 'Please check the figures on page 3.' })
  message: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 30,
    nullable: true,
    example: '2026-12-04T17:00:00.000Z',
  })
  dueAt: string | null;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', maxLength: 30, nullable: true, example: null })
  closedAt: string | null;

  @ApiProperty({ type: [ReviewerDto], maxItems: REVIEWERS_MAX })
  reviewers: ReviewerDto[];

  static from({ review, requesterName, reviewers }: ReviewWithPeople): ReviewDto {
    return {
      id: review.id,
      documentId: review.documentId,
      state: review.state,
      requestedBy: { id: review.requestedBy, username: requesterName },
      message: review.message,
      dueAt: review.dueAt?.toISOString() ?? null,
      createdAt: review.createdAt.toISOString(),
      closedAt: review.closedAt?.toISOString() ?? null,
      reviewers: reviewers.map((reviewer) => ({
        id: reviewer.reviewerId,
        username: reviewer.username,
        decision: reviewer.decision,
        comment: reviewer.comment,
        decidedAt: reviewer.decidedAt?.toISOString() ?? null,
      })),
    };
  }
}

export class ReviewResponseDto {
  @ApiProperty({ type: ReviewDto })
  review: ReviewDto;
}

export class ListReviewsQueryDto {
  @ApiProperty({ enum: ['me'], example: 'me', description: "Whose reviews: the caller's (the only value)." })
  @IsIn(['me'], { message: 'assignedTo must be me' })
  readonly assignedTo: 'me';

  @ApiPropertyOptional({
    enum: ['open', 'closed'],
    default: 'open',
    description: "open: awaiting the caller's answer; closed: answered, or the review ended.",
  })
  @IsOptional()
  @IsIn(['open', 'closed'], { message: 'state must be open or closed' })
  readonly state: 'open' | 'closed' = 'open';

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = 20;

  @ApiPropertyOptional({
    description: 'Opaque position returned as nextCursor: the page continues right after that review.',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

export class AssignedReviewDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '5f0c2b7e-8a1d-4c3e-9b2f-1a2b3c4d5e6f' })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  documentId: string;

  @ApiProperty({ maxLength: 255, example: 'Supplier contract 2026' })
  documentTitle: string;

  @ApiProperty({ enum: DOCUMENT_STATUSES, example: 'in_review' })
  documentStatus: DocumentStatus;

  @ApiProperty({ enum: REVIEW_STATES, example: 'open' })
  state: ReviewState;

  @ApiProperty({ maxLength: REVIEW_TEXT_MAX, example: 'Please check the figures on page 3.' })
  message: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 30,
    nullable: true,
    example: '2026-12-04T17:00:00.000Z',
  })
  dueAt: string | null;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 16,
    example: null,
    description: "The caller's answer (approve or reject); null: not given",
  })
  myDecision: ReviewDecision | null;

  static from({ review, reviewer, documentTitle, documentStatus }: AssignedReview): AssignedReviewDto {
    return {
      id: review.id,
      documentId: review.documentId,
      documentTitle,
      documentStatus,
      state: review.state,
      message: review.message,
      dueAt: review.dueAt?.toISOString() ?? null,
      createdAt: review.createdAt.toISOString(),
      myDecision: reviewer.decision,
    };
  }
}

export class AssignedReviewListResponseDto {
  @ApiProperty({ type: [AssignedReviewDto], maxItems: 100, description: 'Due first; reviews without a date last' })
  reviews: AssignedReviewDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    example: null,
    description: 'Pass as cursor for the reviews after this page; null when there are none.',
  })
  nextCursor: string | null;
}
