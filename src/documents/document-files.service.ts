import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { CONTENT_EXTRACTION_JOB, contentJobSubject } from '../jobs/content-extraction-job.js';
import { JobRunner } from '../jobs/job-runner.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import type { StoredFileSource } from '../storage/file-reply.js';
import { FileStore, type ByteRange, type DownloadHeaders, type StoredFileStream } from '../storage/file-store.js';
import type { MultipartUpload } from '../storage/multipart-upload.js';
import { StoredFiles } from '../storage/stored-files.js';
import { DocumentAccessPolicy, type DocumentAccess } from './document-access.policy.js';
import { checkIfMatch } from './document-change.js';
import { DocumentFields } from './document-fields.js';
import { DocumentVersionsRepository } from './document-versions.repository.js';
import { DocumentWrites } from './document-writes.js';
import { DocumentsRepository } from './documents.repository.js';
import { normalizeTags } from './documents.service.js';
import type { AddVersionDto } from './dto/add-version.dto.js';
import type { CreateDocumentDto } from './dto/create-document.dto.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';

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
 * Documents with files: creating one from an upload, adding versions, listing versions and
 * serving their bytes. An upload's bytes are reserved before its file is placed in the store, and
 * the reservation ends in the transaction of the rows naming them (StoredFiles).
 */
@Injectable()
export class DocumentFilesService {
  private readonly logger = new Logger(DocumentFilesService.name);
  /** Files already reported missing or damaged (logged once each). */
  private readonly unavailableFiles = new Set<string>();

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly versionsRepository: DocumentVersionsRepository,
    private readonly writes: DocumentWrites,
    private readonly transactions: Transactions,
    private readonly policy: DocumentAccessPolicy,
    private readonly store: FileStore,
    private readonly storedFiles: StoredFiles,
    private readonly jobs: JobsRepository,
    private readonly jobRunner: JobRunner,
    private readonly fields: DocumentFields,
  ) {}

  /**
   * Contributor or manager of the project, or documents:create; a viewer 403. A project the
   * caller cannot see (not a member, no projects:manage, no documents:create) is 404, as an unknown one.
   */
  async checkCreateTarget(input: CreateDocumentDto, user: AuthenticatedUser): Promise<void> {
    const target = await this.versionsRepository.createTarget(user.id, input.projectId, input.documentTypeId);
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
      throw new ApiError('validation_failed', `documentTypeId: no document type has the id ${input.documentTypeId}.`);
    }
    // Checked again in the transaction; here so that a bad value costs no upload.
    await this.fields.resolve(undefined, input.documentTypeId, null, input.fields);
  }

  /**
   * Commits the uploaded file, then writes the document, its version 1, a history entry, its
   * uploader as participant and the document.created event in one transaction.
   */
  async create(input: CreateDocumentDto, upload: MultipartUpload, user: AuthenticatedUser): Promise<Document> {
    const now = new Date();
    const document = Object.assign(new Document(), {
      id: randomUUID(),
      projectId: input.projectId,
      documentTypeId: input.documentTypeId,
      title: input.title ?? titleFromFileName(upload.fileName),
      description: input.description ?? '',
      fileName: upload.fileName,
      fileSize: upload.size,
      mimeType: upload.mimeType,
      currentVersion: 1,
      status: 'draft',
      tags: normalizeTags(input.tags ?? []),
      metadata: input.metadata ?? {},
      fields: {} as Record<string, unknown> | null,
      uploadedBy: user.id,
      rowVersion: 1,
      createdAt: now,
      updatedAt: now,
      sha256: upload.sha256,
      deletedAt: null,
      deletedBy: null,
    } satisfies Document);
    const history = Object.assign(new DocumentHistory(), {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: now,
      rowVersion: 1,
      changes: { fileName: { from: null, to: document.fileName } },
      action: 'created',
    } satisfies DocumentHistory);
    await this.committed(upload, (settle) =>
      this.transactions.run(async (tx) => {
        const fields = await this.fields.resolve(tx, document.documentTypeId, null, input.fields);
        document.fields = fields;
        if (Object.keys(fields).length > 0) history.changes.fields = { from: null, to: fields };
        await this.documents.insert(tx, {
          from: document,
          document,
          values: {},
          history,
          version: versionOf(document, upload, user, ''),
          event: {
            type: 'document.created',
            actorId: user.id,
            projectId: document.projectId,
            documentId: document.id,
            subjectUserId: null,
            payload: { title: document.title, actorName: user.username },
          },
        });
        await this.fields.store(tx, document.id, document.documentTypeId, fields);
        await settle(tx);
        await this.queueExtraction(tx, document.id, 1, now);
      }),
    );
    this.jobRunner.wake(CONTENT_EXTRACTION_JOB);
    return document;
  }

  /** The document, if this user may add a version to it now (404, 403, 409 archived, 412 stale). */
  versionable(
    documentId: string,
    found: (DocumentAccess & { document: Document }) | null,
    user: AuthenticatedUser,
    ifMatch?: string,
  ): Document {
    const document = this.policy.changeable(documentId, found, user, 'add a version to');
    if (document.status === 'archived') {
      throw new ApiError('document_archived', 'The document is archived; return it to draft before adding a version.');
    }
    checkIfMatch(ifMatch, document);
    return document;
  }

  /** Checked before the upload is received, so an unwanted file is refused unread. */
  async checkVersionable(documentId: string, user: AuthenticatedUser, ifMatch?: string): Promise<void> {
    this.versionable(documentId, await this.documents.find(documentId, user.id), user, ifMatch);
  }

  /**
   * Commits the uploaded file and moves the document to it as a new version, checking the rules
   * again on the row as locked (a change since the pre-check is 412 with If-Match).
   */
  async addVersion(
    documentId: string,
    input: AddVersionDto,
    upload: MultipartUpload,
    user: AuthenticatedUser,
    ifMatch?: string,
    unlock = false,
  ): Promise<Document> {
    const document = await this.committed(upload, (settle) =>
      this.writes.change(documentId, user, (found) => {
        const current = this.versionable(documentId, found, user, ifMatch);
        const next = current.currentVersion + 1;
        const version = versionOf(
          { id: current.id, currentVersion: next, updatedAt: current.updatedAt },
          upload,
          user,
          input.comment ?? '',
        );
        return {
          current,
          alsoInTx: async (tx) => {
            await settle(tx);
            await this.queueExtraction(tx, current.id, next, new Date());
          },
          change: {
            action: 'version_added',
            event: 'document.version_added',
            values: {
              fileName: upload.fileName,
              fileSize: upload.size,
              mimeType: upload.mimeType,
              sha256: upload.sha256,
              currentVersion: next,
            },
            changes: {
              currentVersion: { from: current.currentVersion, to: next },
              fileName: { from: current.fileName, to: upload.fileName },
            },
            payload: { version: next },
            version,
            releaseLock: unlock,
          },
        };
      }),
    );
    this.jobRunner.wake(CONTENT_EXTRACTION_JOB);
    return document;
  }

  /** Queues the reading of a new version's text (src/content), in the transaction that records the version. */
  private async queueExtraction(tx: Tx, documentId: string, version: number, now: Date): Promise<void> {
    await this.jobs.enqueue(
      tx,
      CONTENT_EXTRACTION_JOB,
      contentJobSubject(documentId, version),
      { documentId, version },
      now,
    );
  }

  /** One page of the document's versions (readers only), newest first, and their total. */
  async versions(
    documentId: string,
    user: AuthenticatedUser,
    page: number,
    limit: number,
  ): Promise<{ versions: DocumentVersion[]; total: number }> {
    this.policy.readable(documentId, await this.documents.find(documentId, user.id), user);
    return this.versionsRepository.list(documentId, (page - 1) * limit, limit);
  }

  /**
   * The version whose bytes the content routes serve: the current one or `version` (readers only).
   * 404 version_not_found for an unknown version and for one without stored bytes.
   */
  async contentVersion(documentId: string, user: AuthenticatedUser, version?: number): Promise<ContentVersion> {
    const document = this.policy.readable(documentId, await this.documents.find(documentId, user.id), user);
    const number = version ?? document.currentVersion;
    const found = await this.versionsRepository.findVersion(documentId, number);
    if (!found) throw new ApiError('version_not_found', `Document ${documentId} has no version ${number}.`);
    if (found.sha256 === null) {
      throw new ApiError(
        'version_not_found',
        `Version ${number} of document ${documentId} was recorded before files were stored; it has no content.`,
      );
    }
    return { document, version: found as ContentVersion['version'] };
  }

  /**
   * The version a share link serves: `version` or the current one of a document not in the trash;
   * null when either is gone. No caller: holding the link is the permission.
   */
  async sharedVersion(documentId: string, version?: number): Promise<ContentVersion | null> {
    const found = await this.versionsRepository.findWithDocument(documentId, version ?? null);
    if (!found || found.version.sha256 === null) return null;
    return found as ContentVersion;
  }

  /**
   * Checks, before any header is sent, that the version's stored file exists with the size its row
   * records (HEAD, 304, 416 answers); otherwise 500 file_unavailable, logged once per file.
   */
  async checkContent(version: ContentVersion['version']): Promise<void> {
    const size = await this.store.size(version.sha256);
    if (size !== version.fileSize) this.unavailable(version, size);
  }

  /** The version's stored bytes as a download reads them (src/storage/file-reply.ts). */
  contentSource(version: ContentVersion['version'], { presigned = true } = {}): StoredFileSource {
    return {
      check: () => this.checkContent(version),
      open: (range) => this.openContent(version, range),
      presignedUrl: presigned ? (headers) => this.downloadUrl(version, headers) : undefined,
    };
  }

  /**
   * The version's bytes (or the inclusive `range` of them), checked against its row before any
   * header is sent: a file missing or of another size (truncated behind the service's back) is 500
   * file_unavailable, logged once per file.
   */
  async openContent(version: ContentVersion['version'], range?: ByteRange): Promise<Readable> {
    let opened: StoredFileStream | undefined;
    try {
      opened = await this.store.open(version.sha256, range);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return this.unavailable(version, await this.store.size(version.sha256));
    }
    if (opened?.size === version.fileSize) return opened.stream;
    opened?.stream.destroy();
    return this.unavailable(version, opened?.size);
  }

  /** A short-lived URL of the version's bytes in the object storage (S3_PRESIGNED_DOWNLOADS), or undefined. */
  downloadUrl(version: ContentVersion['version'], headers: DownloadHeaders): Promise<string | undefined> {
    return this.store.presignedDownload(version.sha256, headers);
  }

  private unavailable(version: ContentVersion['version'], storedSize: number | undefined): never {
    if (!this.unavailableFiles.has(version.sha256)) {
      this.unavailableFiles.add(version.sha256);
      this.logger.error(
        `The stored file ${version.sha256} of document ${version.documentId} version ${version.version} is ` +
          (storedSize === undefined ? 'missing' : `${storedSize} bytes instead of ${version.fileSize}`),
      );
    }
    throw new ApiError(
      'file_unavailable',
      `The stored file of version ${version.version} of document ${version.documentId} is missing or damaged; an administrator has been alerted.`,
    );
  }

  /**
   * Reserves the upload's bytes, places its file, and runs the database write, which settles the
   * reservation in its transaction; a failed write releases them (the file goes unless named).
   */
  private async committed<T>(
    upload: MultipartUpload,
    write: (settle: (tx: Tx) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    try {
      const reservation = await this.storedFiles.reserve(upload.sha256);
      try {
        await upload.file.commit();
        return await write((tx) => this.storedFiles.settle(tx, reservation));
      } catch (error) {
        await this.storedFiles.release(reservation);
        throw error;
      }
    } finally {
      await upload.file.abort();
    }
  }
}

/** The version row of `document`'s current version, from the upload. */
function versionOf(
  document: Pick<Document, 'id' | 'currentVersion' | 'updatedAt'>,
  upload: MultipartUpload,
  user: AuthenticatedUser,
  comment: string,
): DocumentVersion {
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
