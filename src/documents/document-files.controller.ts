import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { Controller, Get, Head, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { ApiErrors, type ApiErrorExample } from '../common/errors/api-errors.decorator.js';
import { ApiError } from '../common/errors/error-codes.js';
import { LONG_RESPONSE_ROUTE, MULTIPART_UPLOAD_ROUTE } from '../common/http/transfer-routes.js';
import { UsesPolicy } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { DocumentFilesService, type ContentVersion } from './document-files.service.js';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { FileStore } from '../storage/file-store.js';
import { etagOf } from './document-change.js';
import { readUploadForm } from './upload-form.js';
import { AddVersionDto, AddVersionFormDto } from './dto/add-version.dto.js';
import { CreateDocumentDto, CreateDocumentFormDto, DOCUMENT_FORM_FIELDS } from './dto/create-document.dto.js';
import { AddVersionQueryDto, ContentQueryDto, ListVersionsQueryDto } from './dto/document-files-query.dto.js';
import { DocumentDto, DocumentResponseDto } from './dto/document-response.dto.js';
import { DocumentVersionDto, DocumentVersionListResponseDto } from './dto/document-version-response.dto.js';
import { sendStoredFile } from '../storage/file-reply.js';

const ETAG_HEADER = {
  ETag: { description: 'Version of the returned document ("v<rowVersion>")', schema: { type: 'string' } },
};
/** An upload's own 413 and 415 sentences: the catalogue's speak of JSON bodies. */
const UPLOAD_ERRORS: ApiErrorExample[] = [
  'request_timeout',
  ['payload_too_large', 'The file must be at most 104857600 bytes (UPLOAD_MAX_BYTES, 100 MiB by default).'],
  ['unsupported_media_type', 'Send the upload as multipart/form-data.'],
  'insufficient_storage',
];

/**
 * Runs `check` before the request body is read; a refusal then asks for `Connection: close`, so
 * that the rest of an unwanted upload is not received.
 */
async function refuseUnread(request: FastifyRequest, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (error instanceof ApiError && !request.raw.readableEnded) {
      throw new ApiError(error.code, error.details, { ...error.headers, connection: 'close' });
    }
    throw error;
  }
}

@ApiTags('documents')
@ApiBearerAuth()
@UsesPolicy('document')
@Controller('api/documents')
export class DocumentFilesController {
  constructor(
    private readonly files: DocumentFilesService,
    private readonly store: FileStore,
    @Inject(storageConfig.KEY) private readonly storage: StorageConfig,
  ) {}

  @Post()
  @Idempotent()
  @RouteConfig(MULTIPART_UPLOAD_ROUTE)
  @ApiErrors('unauthorized', 'forbidden', 'project_not_found', ...UPLOAD_ERRORS)
  @ApiOperation({
    summary: 'Create a document by uploading its file',
    description:
      'multipart/form-data: the text fields first (projectId and documentTypeId required; title, description, ' +
      'tags repeated once per tag, metadata as JSON text), then exactly one part named "file". Same bounds and ' +
      'normalisation as the metadata update. The file is streamed to storage, never held whole in memory; its ' +
      'media type is detected from its bytes. New documents are draft at version 1. Allowed to contributors and ' +
      'managers of the project and to roles granting documents:create. The fields are checked before any byte of ' +
      'the file is stored. Its text is then read in the background (content.status pending → indexed, failed, ' +
      'unsupported or too_large; OCR for images and scanned PDFs) and becomes searchable by q; PDFs and images ' +
      'get previews (GET …/preview). No notification is sent when the text is indexed: poll content.status.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: CreateDocumentFormDto })
  @ApiCreatedResponse({
    type: DocumentResponseDto,
    headers: {
      ...ETAG_HEADER,
      Location: { description: 'URL of the new document', schema: { type: 'string' } },
    },
  })
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentResponseDto> {
    const { input, upload } = await readUploadForm(request, reply, this.store, {
      dto: CreateDocumentDto,
      maxFileBytes: this.storage.uploadMaxBytes,
      maxFields: DOCUMENT_FORM_FIELDS,
      beforeFile: (fields) => this.files.checkCreateTarget(fields, user),
    });
    const document = await this.files.create(input, upload, user);
    void reply.code(201).header('etag', etagOf(document)).header('location', `/api/documents/${document.id}`);
    return { document: DocumentDto.from(document) };
  }

  // Declared before the GET: Fastify would otherwise derive a HEAD route from it (which opens the file).
  @Head(':documentId/content')
  @RouteConfig(LONG_RESPONSE_ROUTE)
  @ApiOperation({
    summary: "The headers of a document's file download",
    description: 'As GET, without the body (Content-Length is the size GET would send).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiResponse({ status: 200, description: 'The headers GET would send' })
  @ApiResponse({ status: 206, description: 'The headers of the requested range' })
  @ApiResponse({ status: 304, description: 'If-None-Match matched' })
  @ApiErrors('unauthorized', 'document_not_found', 'version_not_found', 'range_not_satisfiable')
  async contentHead(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: ContentQueryDto,
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = await this.files.contentVersion(documentId, user, query.version);
    await this.sendContent(found, request, reply, false);
  }

  @Get(':documentId/content')
  @RouteConfig(LONG_RESPONSE_ROUTE)
  @ApiOperation({
    summary: "Download a document's file",
    description:
      'The bytes of the current version, or of ?version=N. Content-Type is the stored media type; the file always ' +
      'comes as an attachment (ASCII filename and RFC 8187 filename*), with nosniff and a sandboxing ' +
      'Content-Security-Policy so an uploaded HTML or SVG file never runs as this site. The ETag is strong (the ' +
      'SHA-256 of the bytes): If-None-Match answers 304. One byte Range answers 206 (If-Range honoured), an ' +
      'unsatisfiable one 416; several ranges are ignored (200, whole file).',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range, e.g. bytes=0-1023 or bytes=-1024' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'A strong ETag from an earlier download' })
  @ApiHeader({ name: 'If-Range', required: false, description: 'Apply Range only while the content has this ETag' })
  @ApiProduces('application/octet-stream')
  @ApiResponse({
    status: 200,
    description: 'The whole file',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    headers: {
      'Content-Disposition': {
        schema: { type: 'string' },
        description: 'attachment; filename="…"; filename*=UTF-8\'\'…',
      },
      ETag: { schema: { type: 'string' }, description: 'Strong: "<sha256>"' },
      'Accept-Ranges': { schema: { type: 'string' }, description: 'bytes' },
    },
  })
  @ApiResponse({
    status: 206,
    description: 'The requested range',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    headers: { 'Content-Range': { schema: { type: 'string' }, description: 'bytes <first>-<last>/<size>' } },
  })
  @ApiResponse({ status: 304, description: 'If-None-Match matched: the client has these bytes' })
  @ApiResponse({
    status: 302,
    description:
      'Only with S3_PRESIGNED_DOWNLOADS=true: the bytes are at Location, a presigned object-storage URL valid for ' +
      'a minute, which answers with the same Content-Type and Content-Disposition and honours Range.',
    headers: { Location: { schema: { type: 'string' }, description: 'Presigned URL of the bytes' } },
  })
  @ApiErrors('unauthorized', 'document_not_found', 'version_not_found', 'range_not_satisfiable')
  async content(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: ContentQueryDto,
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = await this.files.contentVersion(documentId, user, query.version);
    await this.sendContent(found, request, reply, true);
  }

  @Post(':documentId/versions')
  @RouteConfig(MULTIPART_UPLOAD_ROUTE)
  @ApiErrors(
    'unauthorized',
    'forbidden',
    'document_not_found',
    'conflict',
    'document_archived',
    'precondition_failed',
    'document_locked',
    ...UPLOAD_ERRORS,
  )
  @ApiOperation({
    summary: 'Add a version of a document by uploading its new file',
    description:
      'multipart/form-data: an optional comment field (at most 1,000 characters), then exactly one part named ' +
      '"file". currentVersion goes up by one and the document takes the new file\'s name, size, type and sha256; ' +
      'metadata and status stay. Allowed to whoever may change the document; an archived document refuses (409). ' +
      'Send If-Match with the ETag you saw to be told (412) when someone changed the document first. Who may, ' +
      'the archived state and If-Match are checked before the file is received. While someone else holds the ' +
      "document's check-out lock the upload is 423 document_locked; the holder may send ?unlock=true to release " +
      'the lock with the new version. ' +
      "The new version's text is read in the background (content.status back to pending until then); search then " +
      'matches the new text instead of the old.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiHeader({ name: 'If-Match', required: false, description: 'ETag from a previous response ("v<rowVersion>")' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: AddVersionFormDto })
  @ApiCreatedResponse({ type: DocumentResponseDto, headers: ETAG_HEADER })
  async addVersion(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Query() query: AddVersionQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentResponseDto> {
    await refuseUnread(request, () => this.files.checkVersionable(documentId, user, ifMatch));
    const { input, upload } = await readUploadForm(request, reply, this.store, {
      dto: AddVersionDto,
      maxFileBytes: this.storage.uploadMaxBytes,
      maxFields: 1,
    });
    const document = await this.files.addVersion(documentId, input, upload, user, ifMatch, query.unlock);
    void reply.code(201).header('etag', etagOf(document));
    return { document: DocumentDto.from(document) };
  }

  @Get(':documentId/versions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'List the file versions of a document',
    description: 'Newest first; page and limit as in the notification list. For readers of the document.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiOkResponse({ type: DocumentVersionListResponseDto })
  @ApiErrors('unauthorized', 'document_not_found')
  async versions(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @Query() query: ListVersionsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentVersionListResponseDto> {
    const { versions, total } = await this.files.versions(documentId, user, query.page, query.limit);
    return {
      versions: versions.map((version) => DocumentVersionDto.from(version)),
      pagination: PaginationDto.of(query.page, query.limit, total, null),
    };
  }

  /** The download answer (sendStoredFile) of a readable version; a GET may be redirected to S3. */
  private async sendContent(
    { version }: ContentVersion,
    request: FastifyRequest,
    reply: FastifyReply,
    withBody: boolean,
  ): Promise<void> {
    await sendStoredFile(this.files.contentSource(version), version, request, reply, { withBody });
  }
}
