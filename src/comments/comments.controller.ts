import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { CommentsService } from './comments.service.js';
import { CommentBodyDto, CommentDto, CommentListResponseDto, ListCommentsQueryDto } from './dto/comment.dto.js';

@ApiTags('comments')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get('documents/:documentId/comments')
  @ApiOperation({
    summary: "List a document's comments",
    description: 'For readers of the document; oldest first, keyset-paginated with nextCursor.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: CommentListResponseDto })
  @ApiErrors('unauthorized', 'document_not_found')
  async list(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: ListCommentsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<CommentListResponseDto> {
    const page = await this.comments.list(documentId, user, query.limit, query.cursor);
    return {
      comments: page.comments.map((comment) => CommentDto.from(comment)),
      total: page.total,
      nextCursor: page.nextCursor,
    };
  }

  @Post('documents/:documentId/comments')
  @Idempotent()
  @ApiOperation({
    summary: 'Comment on a document',
    description:
      "For readers who may contribute: the project's contributors and managers, and holders of documents:update. " +
      'Mentioned users who can read the document get comment.mentioned; the other participants get comment.created.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiCreatedResponse({
    type: CommentDto,
    headers: { Location: { description: 'URL of the new comment', schema: { type: 'string' } } },
  })
  @ApiErrors('unauthorized', 'forbidden', 'document_not_found')
  async create(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Body() body: CommentBodyDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CommentDto> {
    const comment = await this.comments.create(documentId, body.body, user, audit);
    void reply.header('location', `/api/comments/${comment.id}`);
    return CommentDto.from(comment);
  }

  @Patch('comments/:commentId')
  @ApiOperation({ summary: 'Edit a comment', description: 'Its author only; sets editedAt.' })
  @ApiParam({ name: 'commentId', format: 'uuid' })
  @ApiOkResponse({ type: CommentDto })
  @ApiErrors('unauthorized', 'forbidden', 'comment_not_found')
  async edit(
    @Param('commentId', uuidParam('commentId')) commentId: string,
    @Body() body: CommentBodyDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<CommentDto> {
    return CommentDto.from(await this.comments.edit(commentId, body.body, user, audit));
  }

  @Delete('comments/:commentId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a comment',
    description: 'Its author, a manager of the project or a holder of documents:delete; it disappears from the list.',
  })
  @ApiParam({ name: 'commentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('unauthorized', 'forbidden', 'comment_not_found')
  async remove(
    @Param('commentId', uuidParam('commentId')) commentId: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.comments.remove(commentId, user, audit);
  }
}
