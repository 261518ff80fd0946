import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { ApiWriteGuardErrors } from '../documents/document-write-guards.js';
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

const DOCUMENT_NOT_FOUND = 'document_not_found: no such document, it is in the trash, or the caller cannot read it';
const UNAUTHORIZED = { type: ErrorResponseDto, description: 'unauthorized' };

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
          reviewers: ['0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b'],
          dueAt: '2026-12-04T17:00:00.000Z',
          message: 'Please check the figures on page 3.',
        },
      },
    },
  })
  @ApiOkResponse({ type: ReviewResponseDto })
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'forbidden: a reader who may not submit it' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: DOCUMENT_NOT_FOUND })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'invalid_transition: the document is not a draft' })
  @ApiWriteGuardErrors()
  @ApiCommonErrors({ body: true })
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
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'forbidden: not a reviewer of the open review' })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: `${DOCUMENT_NOT_FOUND}; review_not_found: the document has no open review`,
  })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'conflict: the caller already answered' })
  @ApiWriteGuardErrors()
  @ApiCommonErrors({ body: true })
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
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: `${DOCUMENT_NOT_FOUND}; review_not_found: the document was never reviewed`,
  })
  @ApiCommonErrors()
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
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiCommonErrors()
  async list(
    @Query() query: ListReviewsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<AssignedReviewListResponseDto> {
    const page = await this.reviews.assigned(user, query.state === 'open', query.limit, query.cursor);
    return { reviews: page.reviews.map((row) => AssignedReviewDto.from(row)), nextCursor: page.nextCursor };
  }
}
