import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type ArgumentMetadata } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasPermission, type AuthenticatedUser } from '../auth/authenticated-user.js';
import { sessionUser, type TokenSession } from '../auth/token-session.js';
import { ApiError } from '../common/errors/error-codes.js';
import { MAX_BODY_DEPTH } from '../common/http/request-guards.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { describeIllFormedText, inspectJson } from '../common/validation/json-bounds.validator.js';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentVersionsRepository } from './document-versions.repository.js';
import { DocumentsRepository, type DocumentWithAccess } from './documents.repository.js';
import { etagOf, ifMatchSatisfied, normalizeTags } from './documents.service.js';
import { AddVersionDto } from './dto/add-version.dto.js';
import { CreateDocumentDto } from './dto/create-document.dto.js';
import { DOCUMENT_LIMITS } from './dto/update-document.dto.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';
import { FileStore, type StoredFileStream, type ByteRange } from '../storage/file-store.js';
import { readMultipartUpload, type MultipartUpload } from '../storage/multipart-upload.js';

/** The text fields a create form may carry (tags repeat, once per tag). */
const CREATE_FIELDS = new Set(['projectId', 'documentTypeId', 'title', 'description', 'metadata']);
const VERSION_FIELDS = new Set(['comment']);
/** A lost race without If-Match is retried on the newer row this many times before answering 409. */
const VERSION_ATTEMPTS = 3;

function invalid(details: string): ApiError {
  return new ApiError('validation_failed', details);
}

/** The title a file gives when none is sent: its name without the extension (".bashrc" stays whole). */
export function titleFromFileName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  return stem.trim() === '' ? fileName : stem;
}

/** A version of a document as the content routes serve it. */
export interface ContentVersion {
  document: Document;
  version: DocumentVersion & { sha256: string };
}

/**
 * The rules of documents with files: creating one from an upload, adding versions, reading a
 * document, its versions and their bytes. Files are committed to the store before the database
 * rows that reference them, and a commit whose rows fail is undone (FileStore.undoCommit).
 */
@Injectable()
export class DocumentFilesService {
  private readonly logger = new Logger(DocumentFilesService.name);
  private readonly validation = createValidationPipe({ checkedRequestValues: false });

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly files: DocumentVersionsRepository,
    private readonly policy: DocumentAccessPolicy,
    private readonly store: FileStore,
    @Inject(storageConfig.KEY) private readonly storage: StorageConfig,
  ) {}

  /**
   * Reads the form, checking its text fields and the caller's rights before any file byte is
   * stored, then commits the file and writes the document, its version 1, a history entry and
   * the document.created event in one transaction.
   */
  async create(request: FastifyRequest, reply: FastifyReply, user: AuthenticatedUser): Promise<Document> {
    let input: CreateDocumentDto | undefined;
    const upload = await readMultipartUpload(request, reply, this.store, {
      maxFileBytes: this.storage.uploadMaxBytes,
      maxFields: CREATE_FIELDS.size + DOCUMENT_LIMITS.tagsMax,
      repeatableFields: ['tags'],
      beforeFile: async (fields, lists) => {
        input = await this.createInput(fields, lists);
        await this.checkCreateTarget(input, user);
      },
    });
    try {
      const fields = input!;
      const now = new Date();
      const document = Object.assign(new Document(), {
        id: randomUUID(),
        projectId: fields.projectId,
        documentTypeId: fields.documentTypeId,
        title: fields.title ?? titleFromFileName(upload.fileName),
        description: fields.description ?? '',
        fileName: upload.fileName,
        fileSize: upload.size,
        mimeType: upload.mimeType,
        currentVersion: 1,
        status: 'draft',
        tags: normalizeTags(fields.tags ?? []),
        metadata: fields.metadata ?? {},
        uploadedBy: user.id,
        rowVersion: 1,
        createdAt: now,
        updatedAt: now,
        sha256: upload.sha256,
        deletedAt: null,
        deletedBy: null,
      } satisfies Document);
      await upload.file.commit();
      await this.undoOnFailure(upload, () =>
        this.files.create({
          document,
          version: this.versionOf(document, upload, user, ''),
          history: this.historyOf(document, user, 'created', {
            fileName: { from: null, to: document.fileName },
          }),
          event: {
            type: 'document.created',
            actorId: user.id,
            projectId: document.projectId,
            documentId: document.id,
            subjectUserId: null,
            payload: { title: document.title, actorName: user.username },
          },
        }),
      );
      return document;
    } finally {
      await upload.file.abort();
    }
  }

  /** The document, for a reader (else 404); the statement that reads it also checks the caller's session. */
  async get(documentId: string, session: TokenSession): Promise<Document> {
    const { caller, found } = await this.documents.findWithCaller(documentId, session.userId);
    return this.readable(documentId, found, sessionUser(session, caller));
  }

  /** The document if this (already authenticated) user may read it. */
  private async readableById(documentId: string, user: AuthenticatedUser): Promise<Document> {
    return this.readable(documentId, await this.documents.findById(documentId, user.id), user);
  }

  /**
   * Adds a version from an upload. Who may, the archived state and If-Match are checked before
   * the body is read; the write is conditional on the row version, so a concurrent change makes
   * it 412 with If-Match, or is retried on the newer row without it.
   */
  async addVersion(
    documentId: string,
    request: FastifyRequest,
    reply: FastifyReply,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
  ): Promise<Document> {
    let current = await this.refuseUnread(request, async () =>
      this.versionable(documentId, await this.documents.findById(documentId, user.id), user, ifMatch),
    );
    let comment = '';
    const upload = await readMultipartUpload(request, reply, this.store, {
      maxFileBytes: this.storage.uploadMaxBytes,
      maxFields: VERSION_FIELDS.size,
      beforeFile: async (fields) => {
        const unknown = Object.keys(fields).filter((name) => !VERSION_FIELDS.has(name));
        if (unknown.length) throw invalid(unknown.map((name) => `property ${name} should not exist`).join('; '));
        const input = (await this.validate(fields, AddVersionDto)) as AddVersionDto;
        comment = input.comment ?? '';
      },
    });
    try {
      await upload.file.commit();
      return await this.undoOnFailure(upload, async () => {
        for (let attempt = 1; ; attempt++) {
          const updatedAt = new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1));
          const next = Object.assign(new Document(), current, {
            fileName: upload.fileName,
            fileSize: upload.size,
            mimeType: upload.mimeType,
            sha256: upload.sha256,
            currentVersion: current.currentVersion + 1,
            updatedAt,
            rowVersion: current.rowVersion + 1,
          });
          const written = await this.files.addVersion({
            document: next,
            expectedRowVersion: current.rowVersion,
            version: this.versionOf(next, upload, user, comment),
            history: this.historyOf(next, user, 'version_added', {
              currentVersion: { from: current.currentVersion, to: next.currentVersion },
              fileName: { from: current.fileName, to: next.fileName },
            }),
            event: {
              type: 'document.version_added',
              actorId: user.id,
              projectId: next.projectId,
              documentId: next.id,
              subjectUserId: null,
              payload: { title: next.title, actorName: user.username, version: next.currentVersion },
            },
          });
          if (written) return next;
          const found = await this.documents.findById(documentId, user.id);
          // With If-Match, someone else's change makes ours stale (412 with their ETag); without
          // it, we apply the version on top of theirs, checking the rules again.
          const latest = this.versionable(documentId, found, user, undefined);
          if (ifMatch !== undefined) throw stale(latest);
          if (attempt >= VERSION_ATTEMPTS) {
            throw new ApiError('conflict', 'The document kept changing while the version was added; retry.');
          }
          current = latest;
        }
      });
    } finally {
      await upload.file.abort();
    }
  }

  /** One page of the document's versions (readers only), newest first, and their total. */
  async versions(
    documentId: string,
    user: AuthenticatedUser,
    page: number,
    limit: number,
  ): Promise<{ versions: DocumentVersion[]; total: number }> {
    await this.readableById(documentId, user);
    return this.files.list(documentId, (page - 1) * limit, limit);
  }

  /**
   * The version whose bytes the content routes serve: the current one or `version` (readers only).
   * 404 version_not_found for an unknown version and for one without stored bytes.
   */
  async contentVersion(documentId: string, user: AuthenticatedUser, version?: number): Promise<ContentVersion> {
    const document = await this.readableById(documentId, user);
    const number = version ?? document.currentVersion;
    const found = await this.files.findVersion(documentId, number);
    if (!found) throw new ApiError('version_not_found', `Document ${documentId} has no version ${number}.`);
    if (found.sha256 === null) {
      throw new ApiError(
        'version_not_found',
        `Version ${number} of document ${documentId} was recorded before files were stored; it has no content.`,
      );
    }
    return { document, version: found as ContentVersion['version'] };
  }

  /** A stream of the version's bytes (or of `range`); an error when the store lacks them. */
  async open(version: ContentVersion['version'], range?: ByteRange): Promise<StoredFileStream> {
    const opened = await this.store.open(version.sha256, range);
    if (!opened) throw new Error(`The store has no file for a recorded version (sha256 ${version.sha256}).`);
    return opened;
  }

  private async createInput(
    fields: Record<string, string>,
    lists: Record<string, string[]>,
  ): Promise<CreateDocumentDto> {
    const unknown = Object.keys(fields).filter((name) => !CREATE_FIELDS.has(name));
    if (unknown.length) throw invalid(unknown.map((name) => `property ${name} should not exist`).join('; '));
    const body: Record<string, unknown> = { ...fields };
    if (lists.tags) body.tags = lists.tags;
    if (fields.metadata !== undefined) {
      try {
        body.metadata = JSON.parse(fields.metadata) as unknown;
      } catch {
        throw invalid('metadata must be the JSON text of an object.');
      }
      // What the JSON body guard checks on the update before the DTO sees it (prototype keys, depth,
      // ill-formed text), for the same metadata arriving as form text.
      const shape = inspectJson(body.metadata, MAX_BODY_DEPTH);
      if (shape.forbiddenKey) throw invalid(`metadata must not contain the key "${shape.forbiddenKey}".`);
      if (shape.depth > MAX_BODY_DEPTH)
        throw invalid(`metadata must not be nested more than ${MAX_BODY_DEPTH} levels deep.`);
      if (shape.illFormedText) throw invalid(describeIllFormedText(shape.illFormedText, 'metadata'));
    }
    return (await this.validate(body, CreateDocumentDto)) as CreateDocumentDto;
  }

  /** The same rules, messages and unknown-field refusal as a JSON body of this DTO. */
  private validate(value: Record<string, unknown>, metatype: ArgumentMetadata['metatype']): Promise<unknown> {
    return this.validation.transform(value, { type: 'body', metatype });
  }

  /**
   * Contributor or manager of the project, or documents:create; a viewer 403. A project the
   * caller cannot see (not a member, no projects:manage, no documents:create) is 404, as an unknown one.
   */
  private async checkCreateTarget(input: CreateDocumentDto, user: AuthenticatedUser): Promise<void> {
    const target = await this.files.createTarget(user.id, input.projectId, input.documentTypeId);
    const seesAll = hasPermission(user, 'projects', 'manage') || hasPermission(user, 'documents', 'create');
    if (!target.projectExists || (target.projectRole === null && !seesAll)) {
      throw new ApiError('project_not_found', `No project has the id ${input.projectId}.`);
    }
    if (!this.policy.canCreateIn(user, target.projectRole)) {
      throw new ApiError(
        'forbidden',
        'Only contributors and managers of the project, or a user whose role grants documents:create, may create documents in it.',
      );
    }
    if (!target.documentTypeExists) {
      throw invalid(`documentTypeId: no document type has the id ${input.documentTypeId}.`);
    }
  }

  private readable(documentId: string, found: DocumentWithAccess | null, user: AuthenticatedUser): Document {
    if (!found || !this.policy.canRead(user, found)) {
      throw new ApiError('document_not_found', `No document has the id ${documentId}.`);
    }
    return found.document;
  }

  /** The document, if this user may add a version to it now (404, 403, 409 archived, 412 stale). */
  private versionable(
    documentId: string,
    found: DocumentWithAccess | null,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
  ): Document {
    const document = this.readable(documentId, found, user);
    if (!this.policy.canChange(user, found!)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader (while a contributor of the project), a project manager or a user whose role ' +
          'grants documents:update may add a version to this document.',
      );
    }
    if (document.status === 'archived') {
      throw new ApiError('document_archived', 'The document is archived; return it to draft before adding a version.');
    }
    if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
    return document;
  }

  /**
   * Runs `check` before the request body is read; a refusal then asks for `Connection: close`, so
   * that the rest of an unwanted upload is not received.
   */
  private async refuseUnread<T>(request: FastifyRequest, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (error instanceof ApiError && !request.raw.readableEnded) {
        throw new ApiError(error.code, error.details, { ...error.headers, connection: 'close' });
      }
      throw error;
    }
  }

  /** Runs the database write of a committed upload; if it fails, the file it stored goes too. */
  private async undoOnFailure<T>(upload: MultipartUpload, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await upload.file.undoCommit().catch((undoError: unknown) => {
        this.logger.error({ msg: 'removing the file of a failed upload failed', err: undoError });
      });
      throw error;
    }
  }

  private versionOf(document: Document, upload: MultipartUpload, user: AuthenticatedUser, comment: string) {
    return Object.assign(new DocumentVersion(), {
      documentId: document.id,
      version: document.currentVersion,
      fileName: upload.fileName,
      fileSize: upload.size,
      mimeType: upload.mimeType,
      sha256: upload.sha256,
      comment,
      uploadedBy: user.id,
      createdAt: document.updatedAt,
    } satisfies DocumentVersion);
  }

  private historyOf(
    document: Document,
    user: AuthenticatedUser,
    action: DocumentHistory['action'],
    changes: DocumentHistory['changes'],
  ): DocumentHistory {
    return Object.assign(new DocumentHistory(), {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: document.updatedAt,
      rowVersion: document.rowVersion,
      changes,
      action,
    } satisfies DocumentHistory);
  }
}

/** 412 with the document's current ETag, so a client can retry without a GET. */
function stale(current: Document): ApiError {
  return new ApiError(
    'precondition_failed',
    `If-Match does not match the document's current ETag ${etagOf(current)}; fetch it again and retry.`,
    { etag: etagOf(current) },
  );
}
