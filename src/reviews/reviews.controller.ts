import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import {
  AssignedReviewDto,
  AssignedReviewListResponseDto,
  ListReviewsQueryDto,
  RequestReviewDto,
  ReviewDecisionDto,
  ReviewDto,
  ReviewResponseDto,
} from './dto/review.dto.js';
import { ReviewsService } from './reviews.service.js';
import { DEMO_EXAMPLE } from '../common/demo-ids.js';

@ApiTags('reviews')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api')
export class ReviewsController {
  constructor(private readonly reviews: ReviewsService) {}

  @Post('documents/:documentId/review')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Submit a draft for review by named reviewers',
    description:
      'draft → in_review, for whoever may submit it (the uploader while a contributor, a project manager, ' +
      'documents:update); every reviewer must be able to read the document (else 400). Each reviewer gets ' +
      'review.requested (urgent: e-mail by default), review.reminder a day before dueAt and review.overdue at it. ' +
      'The bare POST /api/documents/{id}/status {status: in_review} still submits without reviewers. Audited.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiBody({
    type: RequestReviewDto,
    examples: {
      dated: {
        value: {
          reviewers: [DEMO_EXAMPLE.userId],
          dueAt: '2026-12-04T17:00:00.000Z',
          message: 'Please check the figures on page 3.',
        },
      },
    },
  })
  @ApiOkResponse({ type: ReviewResponseDto })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found', 'invalid_transition', 'document_locked')
  async request(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: RequestReviewDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<ReviewResponseDto> {
    return { review: ReviewDto.from(await this.reviews.request(documentId, body, user, audit)) };
  }

  @Post('documents/:documentId/review/decision')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer the open review of a document',
    description:
      'For its reviewers, once each. A rejection returns the document to draft at once; approvals publish it when ' +
      'every reviewer approved (REVIEW_POLICY=all) or at the first (any). The requester gets review.decided. Audited.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiBody({
    type: ReviewDecisionDto,
    examples: {
      approve: { value: { decision: 'approve' } },
      reject: { value: { decision: 'reject', comment: 'The totals on page 3 do not add up.' } },
    },
  })
  @ApiOkResponse({ type: ReviewResponseDto })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found', 'review_not_found', 'conflict', 'document_locked')
  async decide(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: ReviewDecisionDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<ReviewResponseDto> {
    const review = await this.reviews.decide(documentId, body.decision, body.comment, user, audit);
    return { review: ReviewDto.from(review) };
  }

  @Get('documents/:documentId/review')
  @ApiOperation({
    summary: "A document's latest review",
    description: 'For readers of the document: its reviewers, their answers and the dates.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: ReviewResponseDto })
  @ApiErrors('unauthorized', 'document_not_found', 'review_not_found')
  async get(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ReviewResponseDto> {
    return { review: ReviewDto.from(await this.reviews.get(documentId, user)) };
  }

  @Get('reviews')
  @ApiOperation({
    summary: 'The reviews assigned to the caller',
    description:
      "assignedTo=me; state=open lists what awaits the caller's answer, closed the rest. Due first (undated " +
      'last), keyset-paginated with nextCursor; documents in the trash are left out.',
  })
  @ApiOkResponse({ type: AssignedReviewListResponseDto })
  @ApiErrors('unauthorized')
  async list(
    @Query() query: ListReviewsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<AssignedReviewListResponseDto> {
    const page = await this.reviews.assigned(user, query.state === 'open', query.limit, query.cursor);
    return { reviews: page.reviews.map((row) => AssignedReviewDto.from(row)), nextCursor: page.nextCursor };
  }
}
