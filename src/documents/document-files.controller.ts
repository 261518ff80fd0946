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
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ApiError, type ErrorCode } from '../common/errors/error-codes.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
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
import { ApiWriteGuardErrors } from './document-write-guards.js';

/** An error answer in Swagger, with one example per code it may carry. */
function ApiErrors(status: number, ...examples: [code: ErrorCode, details: string][]) {
  return ApiResponse({
    status,
    type: ErrorResponseDto,
    description: examples.map(([code]) => code).join(', '),
    examples: Object.fromEntries(
      examples.map(([code, details], index) => [
        `${code}${index ? `_${index}` : ''}`,
        { summary: code, value: { error: code, details } },
      ]),
    ),
  });
}

const ETAG_HEADER = {
  ETag: { description: 'Version of the returned document ("v<rowVersion>")', schema: { type: 'string' } },
};
const UNAUTHORIZED: [ErrorCode, string] = ['unauthorized', 'A valid bearer token is required.'];
const NOT_FOUND: [ErrorCode, string] = [
  'document_not_found',
  'No document has the id 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f.',
];
const BAD_ID: [ErrorCode, string] = ['validation_failed', 'documentId must be a UUID'];
const UPLOAD_ERRORS = [
  ApiErrors(413, ['payload_too_large', 'The file must be at most 104857600 bytes.']),
  ApiErrors(415, ['unsupported_media_type', 'Send the upload as multipart/form-data.']),
  ApiErrors(408, ['request_timeout', 'The request was not received in time; send it again.']),
];
const UPLOAD_BAD_REQUESTS: [ErrorCode, string][] = [
  ['validation_failed', 'The file is empty.'],
  ['validation_failed', 'The request has no file part named "file".'],
  ['validation_failed', 'Send exactly one file, in the part named "file"; a second file part was sent.'],
  ['validation_failed', 'Text fields must come before the file part; "title" came after it.'],
  ['validation_failed', 'The file name must be at most 255 characters long.'],
  ['validation_failed', 'The file name must not contain control characters or bidirectional formatting characters.'],
  ['validation_failed', 'The file name is only a path; send a name for the file itself.'],
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

function applyDecorators(...decorators: (ClassDecorator | MethodDecorator | PropertyDecorator)[]): MethodDecorator {
  return (target, key, descriptor) => {
    for (const decorator of decorators) (decorator as MethodDecorator)(target, key, descriptor);
  };
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
  @ApiErrors(507, ['insufficient_storage', 'The file store is full; nothing was kept. Try again later.'])
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
  @ApiErrors(
    400,
    ['validation_failed', 'projectId must be a UUID'],
    ['validation_failed', 'documentTypeId: no document type has the id 3f1c6e0a-5b7d-4e2f-9a8c-1d2e3f4a5b6c.'],
    ['validation_failed', 'metadata must be the JSON text of an object.'],
    ...UPLOAD_BAD_REQUESTS,
  )
  @ApiErrors(401, UNAUTHORIZED)
  @ApiErrors(403, [
    'forbidden',
    'Only contributors and managers of the project, or a user whose role grants documents:create, may create documents in it.',
  ])
  @ApiErrors(404, ['project_not_found', 'No project has the id 3f1c6e0a-5b7d-4e2f-9a8c-1d2e3f4a5b6c.'])
  @applyDecorators(...UPLOAD_ERRORS)
  @ApiCommonErrors()
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
  @ApiErrors(416, ['range_not_satisfiable', 'The file has 482133 bytes; ask for a range that starts within them.'])
  @ApiErrors(400, BAD_ID)
  @ApiErrors(401, UNAUTHORIZED)
  @ApiErrors(404, NOT_FOUND, ['version_not_found', 'Document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f has no version 7.'])
  @ApiCommonErrors()
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
  @ApiErrors(400, BAD_ID, ['validation_failed', 'version must be an integer'])
  @ApiErrors(401, UNAUTHORIZED)
  @ApiErrors(
    404,
    NOT_FOUND,
    ['version_not_found', 'Document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f has no version 7.'],
    [
      'version_not_found',
      'Version 1 of document 9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f was recorded before files were stored; it has no content.',
    ],
  )
  @ApiErrors(416, ['range_not_satisfiable', 'The file has 482133 bytes; ask for a range that starts within them.'])
  @ApiCommonErrors()
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
  @ApiErrors(507, ['insufficient_storage', 'The file store is full; nothing was kept. Try again later.'])
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
  @ApiErrors(
    400,
    BAD_ID,
    ['validation_failed', 'comment must be at most 1000 characters (Unicode code points)'],
    ...UPLOAD_BAD_REQUESTS,
  )
  @ApiErrors(401, UNAUTHORIZED)
  @ApiErrors(403, [
    'forbidden',
    'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:update may add a version to this document.',
  ])
  @ApiErrors(404, NOT_FOUND)
  @ApiErrors(
    409,
    ['document_archived', 'The document is archived; return it to draft before adding a version.'],
    ['conflict', 'The document kept changing while the version was added; retry.'],
  )
  @ApiResponse({
    status: 412,
    type: ErrorResponseDto,
    description: 'precondition_failed: If-Match is stale',
    headers: { ETag: { description: 'Current version of the document, to retry with', schema: { type: 'string' } } },
    example: {
      error: 'precondition_failed',
      details: 'If-Match does not match the document\'s current ETag "v3"; fetch it again and retry.',
    },
  })
  @applyDecorators(...UPLOAD_ERRORS)
  @ApiWriteGuardErrors()
  @ApiCommonErrors()
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
  @ApiErrors(400, BAD_ID, ['validation_failed', 'limit must not be greater than 100'])
  @ApiErrors(401, UNAUTHORIZED)
  @ApiErrors(404, NOT_FOUND)
  @ApiCommonErrors()
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
