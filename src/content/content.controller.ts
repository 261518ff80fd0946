import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { RequirePermission, UsesPolicy } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { ContentQueryDto } from '../documents/dto/document-files-query.dto.js';
import { entityTag, ifNoneMatchSatisfied } from '../storage/content-response.js';
import { ContentService } from './content.service.js';
import { PreviewQueryDto } from './dto/preview-query.dto.js';
import { ContentCountsResponseDto, ReindexContentDto, ReindexContentResponseDto } from './dto/content-admin.dto.js';
/** As downloads: what was read from an upload is never sniffed or run as this site. */
const SERVED_SAFETY = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
};

@ApiTags('content')
@ApiBearerAuth()
@Controller('api')
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Get('documents/:documentId/text')
  @UsesPolicy('document')
  @ApiOperation({
    summary: "A document version's extracted text",
    description:
      'The text read from the current version (or ?version=N) as text/plain; for readers of the document. ' +
      "404 content_not_available until that version is indexed (see the document's content.status).",
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'The text, UTF-8',
    content: {
      'text/plain': {
        schema: { type: 'string', maxLength: 4 * 100_000_000, example: 'SUPPLY AGREEMENT\n\nThe supplier shall…' },
      },
    },
  })
  @ApiErrors('unauthorized', 'document_not_found', 'version_not_found', 'content_not_available')
  async text(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: ContentQueryDto,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const text = await this.content.text(documentId, user, query.version);
    void reply.headers({
      ...SERVED_SAFETY,
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'private, no-cache',
    });
    return text;
  }

  @Get('documents/:documentId/preview')
  @UsesPolicy('document')
  @ApiOperation({
    summary: "A picture of a document version's first page",
    description:
      'A PNG of the first page of a PDF or of an image, made in the background after the upload (small: at most ' +
      "256 px on the long side, large: at most 1,024 px); for readers of the document. Strong ETag (the PNG's " +
      'SHA-256): If-None-Match answers 304. 404 preview_not_available while it is being made and for formats ' +
      'without one.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'A strong ETag from an earlier answer' })
  @ApiProduces('image/png')
  @ApiOkResponse({
    description: 'The PNG',
    content: { 'image/png': { schema: { type: 'string', format: 'binary', maxLength: 64 * 1024 * 1024 } } },
    headers: {
      ETag: { schema: { type: 'string', maxLength: 66 }, description: 'Strong: "<sha256>"' },
      'Cache-Control': { schema: { type: 'string', maxLength: 64 }, description: 'private, no-cache' },
    },
  })
  @ApiResponse({
    status: 304,
    description: 'If-None-Match matched: the client has this picture',
    headers: { ETag: { schema: { type: 'string', maxLength: 66 }, description: 'Strong: "<sha256>"' } },
  })
  @ApiErrors('unauthorized', 'document_not_found', 'version_not_found', 'preview_not_available')
  async preview(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: PreviewQueryDto,
    @CurrentUser() user: AuthenticatedUser,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { sha256, file } = await this.content.preview(documentId, user, query.size ?? 'small', query.version);
    const etag = entityTag(sha256);
    void reply.headers({ ...SERVED_SAFETY, etag, 'cache-control': 'private, no-cache' });
    if (ifNoneMatchSatisfied(ifNoneMatch, etag)) {
      file.stream.destroy();
      await reply.code(304).send();
      return;
    }
    await reply.type('image/png').header('content-length', file.size).send(file.stream);
  }

  @Get('admin/content')
  @RequirePermission('documents:read')
  @ApiOperation({
    summary: 'Extraction states',
    description: "How many live documents' current versions are in each state. Needs documents:read.",
  })
  @ApiOkResponse({ type: ContentCountsResponseDto })
  @ApiErrors('unauthorized', 'forbidden')
  async counts(): Promise<ContentCountsResponseDto> {
    return { counts: await this.content.counts() };
  }

  @Post('admin/content/reindex')
  @HttpCode(202)
  @RequirePermission('documents:update')
  @ApiOperation({
    summary: 'Read documents again',
    description:
      'Queues the current versions of live documents for extraction: those that failed (default) or all, ' +
      'optionally of one project or document type. Versions already queued are not queued twice. Needs ' +
      'documents:update. `npm run content:reindex` does the same from the command line.',
  })
  @ApiAcceptedResponse({ type: ReindexContentResponseDto })
  @ApiErrors('unauthorized', 'forbidden')
  async reindex(@Body() body: ReindexContentDto): Promise<ReindexContentResponseDto> {
    const queued = await this.content.reindex({
      status: body.status ?? 'failed',
      documentTypeId: body.documentTypeId,
      projectId: body.projectId,
    });
    return { queued };
  }
}
