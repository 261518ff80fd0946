import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import { Public } from '../common/http/route-access.js';
import { LONG_RESPONSE_ROUTE } from '../common/http/transfer-routes.js';
import { DocumentFilesService } from '../documents/document-files.service.js';
import { entityTag } from '../storage/content-response.js';
import { DOWNLOAD_SAFETY, sendStoredFile } from '../storage/file-reply.js';
import { OpenShareQueryDto } from './dto/share.dto.js';
import { sharePage, wantsHtml } from './share-page.js';
import { SharesService } from './shares.service.js';

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every answer of a link: kept out of search engines, caches and Referer headers. */
const LINK_HEADERS = { 'x-robots-tag': 'noindex, nofollow', 'referrer-policy': 'no-referrer' };

@ApiTags('shares')
@Public()
@Controller('s')
export class PublicSharesController {
  constructor(
    private readonly shares: SharesService,
    private readonly files: DocumentFilesService,
  ) {}

  @Get(':link')
  @RouteConfig(LONG_RESPONSE_ROUTE)
  @ApiOperation({
    summary: 'Open a share link (no login)',
    description:
      'The file, as the authenticated download serves it (Range, strong ETag, If-None-Match, attachment, nosniff, ' +
      'sandbox CSP), with X-Robots-Tag: noindex. A client whose Accept asks for text/html gets a small page with a ' +
      'download link instead (?download=true always gets the file). Every link that cannot serve (unknown, expired, ' +
      'revoked, used up, its document in the trash) answers the same 404. A password-protected link wants ' +
      'X-Share-Password: 401 when missing or wrong (after the same argon2 check), 429 after too many attempts from ' +
      'one address (the LOGIN_RATE_*_PER_USERNAME limits). Each download is counted and audited (share.accessed): ' +
      'on a link with maxDownloads before the file is sent, on others while it is sent (committed within ' +
      '100 ms, flushed on a clean stop). The sharer may turn on the share.accessed notification: downloads of one ' +
      'link counted in one commit are told in one event (payload.downloads: how many).',
  })
  @ApiParam({
    name: 'link',
    description: "The link's token (43 characters)",
    schema: { type: 'string', maxLength: 64 },
  })
  @ApiHeader({
    name: 'X-Share-Password',
    required: false,
    description: "The link's password, when it has one",
    schema: { type: 'string', maxLength: 128 },
  })
  @ApiHeader({
    name: 'Range',
    required: false,
    description: 'One byte range, e.g. bytes=0-1023',
    schema: { type: 'string', maxLength: 100 },
  })
  @ApiProduces('application/octet-stream', 'text/html')
  @ApiResponse({
    status: 200,
    description: 'The whole file, or the HTML page',
    content: {
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'text/html': { schema: { type: 'string', maxLength: 8192 } },
    },
    headers: {
      'X-Robots-Tag': { schema: { type: 'string' }, description: 'noindex, nofollow' },
      ETag: { schema: { type: 'string' }, description: 'Strong: "<sha256>" of the file (or of the page)' },
    },
  })
  @ApiResponse({
    status: 206,
    description: 'The requested range',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiResponse({ status: 304, description: 'If-None-Match matched' })
  @ApiErrors('share_password_required', 'share_not_found', 'range_not_satisfiable', 'too_many_requests')
  async open(
    @Param('link') token: string,
    @Query() query: OpenShareQueryDto,
    @Headers('x-share-password') password: string | undefined,
    @RequestAudit() audit: AuditContext,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    void reply.headers(LINK_HEADERS);
    const page = !query.download && wantsHtml(request.headers.accept);
    // HEAD (derived by Fastify from this route) shows the headers and counts nothing.
    const download = !page && request.method === 'GET';
    const content = await this.shares.open(token, password, audit, { download });
    if (page) {
      const html = sharePage(content);
      await reply
        .headers({ ...DOWNLOAD_SAFETY, 'cache-control': 'no-store', etag: entityTag(sha256Hex(html)) })
        .type('text/html; charset=utf-8')
        .send(html);
      return;
    }
    // Never a redirect: the link's own headers (noindex, no-referrer) must reach the client.
    await sendStoredFile(
      this.files.contentSource(content.version, { presigned: false }),
      content.version,
      request,
      reply,
      {
        withBody: request.method === 'GET',
        headers: { ...LINK_HEADERS, 'cache-control': 'private, no-store' },
      },
    );
  }
}
