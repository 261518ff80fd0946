import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { hasPermission, type AuthenticatedUser } from '../auth/authenticated-user.js';
import { sessionUser, type TokenSession } from '../auth/token-session.js';
import { ApiError } from '../common/errors/error-codes.js';
import { storageConfig } from '../config/configuration.js';
import type { DomainEvent, DomainEventType } from '../events/domain-event.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { decodeDocumentCursor, type DocumentCursor } from './document-cursor.js';
import {
  DocumentsRepository,
  type DocumentWithAccess,
  type DocumentWrite,
  type EditableDocumentFields,
  type WritableDocumentFields,
} from './documents.repository.js';
import { sortColumn, type DocumentListFilters, type DocumentVisibility, type KeysetSort } from './documents.sql.js';
import type { ListDocumentsQueryDto, ListTrashQueryDto } from './dto/list-documents-query.dto.js';
import type { UpdateDocumentDto } from './dto/update-document.dto.js';
import { DocumentHistory, type DocumentHistoryAction, type FieldChange } from './entities/document-history.entity.js';
import { Document, type DocumentStatus } from './entities/document.entity.js';
import { FileStore } from '../storage/file-store.js';

type EditableField = keyof EditableDocumentFields;
const EDITABLE_FIELDS: EditableField[] = ['title', 'description', 'tags', 'metadata'];

/** At most this many history entries are listed. */
const HISTORY_LIMIT = 500;

/**
 * The review workflow: who may make each move. `change` is the policy's canChange (the uploader
 * while a contributor, a project manager, documents:update); `publish` its canPublish (a project
 * manager, documents:publish). Any other move is 409 invalid_transition.
 */
export const DOCUMENT_TRANSITIONS: Record<DocumentStatus, Partial<Record<DocumentStatus, 'change' | 'publish'>>> = {
  draft: { in_review: 'change' },
  in_review: { draft: 'publish', published: 'publish' },
  published: { archived: 'publish' },
  archived: { draft: 'publish' },
};

/** A stored file is removed only when untouched this long (see FileStore: a commit may be reusing it). */
export const PURGE_FILE_GRACE_MS = 15 * 60_000;
/** Documents purged per transaction. */
const PURGE_BATCH = 100;
/** Tries of a workflow write that keeps losing a race (without If-Match) before answering 409 conflict. */
const WRITE_ATTEMPTS = 5;

/** Words of a search: runs of letters and digits; all but the last need 3+ characters (InnoDB's minimum). */
export function searchWords(q: string): string[] {
  const words = q.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return words.filter((word, index) => index === words.length - 1 || Array.from(word).length >= 3);
}

export interface DocumentPage {
  documents: Document[];
  total: number;
  /** Position after the last item, when more items follow (never for relevance). */
  next: DocumentCursor | null;
}

export interface PurgeResult {
  documents: number;
  files: number;
}

export function etagOf(document: Pick<Document, 'rowVersion'>): string {
  return `"v${document.rowVersion}"`;
}

/** RFC 9110 If-Match: "*" or a list of entity tags; weak tags never match. */
export function ifMatchSatisfied(header: string, document: Pick<Document, 'rowVersion'>): boolean {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const current = etagOf(document);
  return trimmed.split(',').some((tag) => tag.trim() === current);
}

/** Drops duplicates keeping the first occurrence (tags arrive already trimmed by the DTO). */
export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

@Injectable()
export class DocumentsService {
  private readonly logger = new Logger(DocumentsService.name);
  /** Unreferenced files kept by the grace period, tried again by the next purge (in memory only). */
  private readonly deferredFiles = new Set<string>();

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly policy: DocumentAccessPolicy,
    private readonly files: FileStore,
    @Inject(storageConfig.KEY) private readonly storage: ConfigType<typeof storageConfig>,
  ) {}

  /**
   * The documents the caller may read (their projects' and their own uploads; everything with
   * documents:read), never trashed ones, filtered (AND), sorted, with the exact total. A page number
   * is an OFFSET; a cursor (every sort but relevance) continues right after the item it names.
   */
  async list(query: ListDocumentsQueryDto, user: AuthenticatedUser): Promise<DocumentPage> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const words = query.q === undefined ? undefined : searchWords(query.q);
    const sort = query.sort ?? (words ? 'relevance' : '-updatedAt');
    if (sort === 'relevance' && !words) throw new ApiError('validation_failed', 'sort=relevance needs q.');
    if (sort === 'relevance' && query.cursor !== undefined) {
      throw new ApiError('validation_failed', 'sort=relevance pages by page only; cursor is not available.');
    }
    const after = query.cursor === undefined ? undefined : decodeDocumentCursor(query.cursor, sort as KeysetSort);
    const tags = query.tags
      ?.split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag.length > 0);
    const filters: DocumentListFilters = {
      projectId: query.projectId,
      documentTypeId: query.documentTypeId,
      status: query.status,
      uploadedBy: query.uploadedBy,
      tags,
      words,
      updatedFrom:
        query.updatedFrom === undefined ? undefined : this.documents.stored('updatedAt', new Date(query.updatedFrom)),
      updatedTo:
        query.updatedTo === undefined ? undefined : this.documents.stored('updatedAt', new Date(query.updatedTo)),
    };
    const visibility: DocumentVisibility = hasPermission(user, 'documents', 'read')
      ? { all: true }
      : { all: false, userId: user.id, projectIds: await this.documents.memberProjectIds(user.id) };

    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    const position = after && {
      value:
        typeof after.value === 'number'
          ? this.documents.stored(sortColumn(after.sort) as 'updatedAt', new Date(after.value))
          : after.value,
      id: after.id,
    };
    // One row more than the page tells whether anything follows.
    const { documents: rows, total } = await this.documents.page(
      visibility,
      filters,
      sort,
      query.limit + 1,
      offset,
      position,
    );
    const documents = rows.slice(0, query.limit);
    const last = documents.at(-1);
    let next: DocumentCursor | null = null;
    if (sort !== 'relevance' && rows.length > query.limit && last) {
      const column = sortColumn(sort);
      next = { sort, value: column === 'title' ? last.title : last[column as 'updatedAt'].getTime(), id: last.id };
    }
    return { documents, total, next };
  }

  /** Moves a document along the review workflow (DOCUMENT_TRANSITIONS), conditional on its row version. */
  changeStatus(documentId: string, to: DocumentStatus, user: AuthenticatedUser, ifMatch?: string): Promise<Document> {
    return this.writeWorkflow(documentId, user, ifMatch, (found) => {
      const document = this.readable(documentId, found, user);
      const rule = DOCUMENT_TRANSITIONS[document.status]?.[to];
      if (!rule) {
        throw new ApiError('invalid_transition', `A document cannot move from ${document.status} to ${to}.`);
      }
      const allowed = rule === 'change' ? this.policy.canChange(user, found!) : this.policy.canPublish(user, found!);
      if (!allowed) {
        throw new ApiError(
          'forbidden',
          rule === 'change'
            ? 'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:update may submit this document for review.'
            : `Only a project manager or a user whose role grants documents:publish may move a document from ${document.status} to ${to}.`,
        );
      }
      return this.workflowWrite(
        document,
        user,
        'status_changed',
        'document.status_changed',
        { status: to },
        {
          status: { from: document.status, to },
        },
        { from: document.status, to },
      );
    });
  }

  /**
   * To the trash (every route then answers 404 for it), or with `permanent` removed at once with
   * its versions, history and unreferenced files (documents:purge).
   */
  async remove(
    documentId: string,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
    permanent: boolean,
  ): Promise<void> {
    if (permanent) {
      const found =
        (await this.documents.findById(documentId, user.id)) ?? (await this.documents.findTrashed(documentId, user.id));
      const document = this.readable(documentId, found, user);
      if (!this.policy.canPurge(user)) {
        throw new ApiError(
          'forbidden',
          'Only a user whose role grants documents:purge may delete a document permanently.',
        );
      }
      if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
      await this.purgeDocuments([documentId], true);
      return;
    }
    await this.writeWorkflow(documentId, user, ifMatch, (found) => {
      const document = this.readable(documentId, found, user);
      if (!this.policy.canDelete(user, found!)) {
        throw new ApiError(
          'forbidden',
          'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:delete may delete this document.',
        );
      }
      const deletedAt = new Date(Math.max(Date.now(), document.updatedAt.getTime() + 1));
      return this.workflowWrite(document, user, 'deleted', 'document.deleted', { deletedAt, deletedBy: user.id }, {});
    });
  }

  /** The trash: deleted documents the caller could delete, last deleted first. */
  async trash(query: ListTrashQueryDto, user: AuthenticatedUser): Promise<{ documents: Document[]; total: number }> {
    const everything = hasPermission(user, 'documents', 'delete');
    const total = await this.documents.trashCount(everything, user.id);
    const offset = ((query.page ?? 1) - 1) * query.limit;
    if (offset >= total) return { documents: [], total };
    return { documents: await this.documents.trashPage(everything, user.id, query.limit, offset), total };
  }

  /** Takes a document out of the trash (whoever could delete it may restore it). */
  restore(documentId: string, user: AuthenticatedUser): Promise<Document> {
    return this.writeWorkflow(
      documentId,
      user,
      undefined,
      (found) => {
        // Someone who could not delete it does not learn it is in the trash.
        if (!found || !this.policy.canRead(user, found) || !this.policy.canDelete(user, found)) {
          throw new ApiError('document_not_found', `No deleted document has the id ${documentId}.`);
        }
        return this.workflowWrite(
          found.document,
          user,
          'restored',
          'document.restored',
          { deletedAt: null, deletedBy: null },
          {},
        );
      },
      true,
    );
  }

  /**
   * Removes documents that have been in the trash longer than TRASH_RETENTION_DAYS, with their
   * versions and history, then every stored file no version references any more.
   */
  async purgeExpired(now = new Date()): Promise<PurgeResult> {
    const cutoff = new Date(now.getTime() - this.storage.trashRetentionDays * 86_400_000);
    const result: PurgeResult = { documents: 0, files: 0 };
    for (;;) {
      const ids = await this.documents.purgeCandidates(cutoff, PURGE_BATCH);
      if (ids.length === 0) break;
      const batch = await this.purgeDocuments(ids, false);
      result.documents += batch.documents;
      result.files += batch.files;
      if (ids.length < PURGE_BATCH) break;
    }
    // Files a previous purge had to keep for the grace period.
    const retry = [...this.deferredFiles];
    this.deferredFiles.clear();
    result.files += await this.removeFiles(await this.documents.unreferencedHashes(retry));
    return result;
  }

  private async purgeDocuments(ids: string[], onlyTheseIds: boolean): Promise<PurgeResult> {
    const unreferenced = await this.documents.purge(ids, onlyTheseIds);
    const files = await this.removeFiles(unreferenced.hashes);
    return { documents: unreferenced.documents, files };
  }

  private async removeFiles(hashes: string[]): Promise<number> {
    const modifiedBefore = new Date(Date.now() - PURGE_FILE_GRACE_MS);
    let removed = 0;
    for (const hash of hashes) {
      try {
        if (await this.files.remove(hash, { modifiedBefore })) removed++;
        else if ((await this.files.size(hash)) !== undefined) this.deferredFiles.add(hash);
      } catch (error) {
        this.deferredFiles.add(hash);
        this.logger.warn(
          `A purged file could not be removed; trying again at the next purge (${(error as Error).message})`,
        );
      }
    }
    return removed;
  }

  /**
   * Reads the document (trashed ones with `trashed`), lets `decide` check the rules and plan the
   * write, and writes it conditional on the row version. If-Match that does not match is 412; a
   * lost race without If-Match reads again and retries.
   */
  private async writeWorkflow(
    documentId: string,
    user: AuthenticatedUser,
    ifMatch: string | undefined,
    decide: (found: DocumentWithAccess | null) => DocumentWrite,
    trashed = false,
  ): Promise<Document> {
    const read = () =>
      trashed ? this.documents.findTrashed(documentId, user.id) : this.documents.findById(documentId, user.id);
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const found = await read();
      const write = decide(found);
      if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, write.from)) throw stale(write.from);
      if (await this.documents.writeIfUnchanged(write)) return updated(write);
      if (ifMatch !== undefined) {
        const current = await read();
        if (current) throw stale(current.document);
      }
    }
    throw new ApiError('conflict', 'The document kept changing while this request tried to apply; try again.');
  }

  /** A workflow write: the fields, a history row with `action`, the outbox event; updatedAt and rowVersion move on. */
  private workflowWrite(
    document: Document,
    user: AuthenticatedUser,
    action: DocumentHistoryAction,
    eventType: DomainEventType,
    values: WritableDocumentFields,
    changes: Record<string, FieldChange>,
    payload: Record<string, unknown> = {},
  ): DocumentWrite {
    const updatedAt = new Date(Math.max(Date.now(), document.updatedAt.getTime() + 1));
    const rowVersion = document.rowVersion + 1;
    const history = Object.assign(new DocumentHistory(), {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: updatedAt,
      rowVersion,
      changes,
      action,
    });
    const event: DomainEvent = {
      type: eventType,
      actorId: user.id,
      projectId: document.projectId,
      documentId: document.id,
      subjectUserId: null,
      payload: { title: document.title, actorName: user.username, ...payload },
    };
    return { from: document, values, updatedAt, rowVersion, history, event };
  }

  /**
   * Applies the given fields (omitted ones keep their value) with a write conditional on the row
   * version plus a history row, in one transaction. With If-Match a stale version is 412 (with
   * the current ETag). Without it, a lost race falls back to a locked read-modify-write, so the
   * update always lands whole and never becomes a 412 the client did not ask for.
   */
  async update(
    documentId: string,
    input: UpdateDocumentDto,
    session: TokenSession,
    ifMatch?: string,
  ): Promise<Document> {
    // One statement reads the document and checks the session (the route is sessionCheckedByQuery).
    const { caller, found, othersTakePart } = await this.documents.findForChange(documentId, session.userId);
    const user = sessionUser(session, caller);
    const document = this.updatable(documentId, found, user);
    if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
    refuseArchived(document);
    const write = this.plan(document, input, user);
    if (!write) return document;

    if (await this.documents.writeIfUnchanged({ ...write, othersTakePart })) return updated(write);
    if (ifMatch !== undefined) {
      // Someone else wrote first: answer with the version they left.
      throw stale(this.updatable(documentId, await this.documents.findById(documentId, user.id), user));
    }
    return this.documents.updateLocked(documentId, user.id, (current) => {
      const locked = this.updatable(documentId, current, user);
      refuseArchived(locked);
      const lockedWrite = this.plan(locked, input, user);
      return lockedWrite ? { result: updated(lockedWrite), write: lockedWrite } : { result: locked };
    });
  }

  async history(documentId: string, user: AuthenticatedUser): Promise<DocumentHistory[]> {
    this.readable(documentId, await this.documents.findById(documentId, user.id), user);
    return this.documents.history(documentId, HISTORY_LIMIT);
  }

  /** The document, if it exists and this user may read it; else 404, so existence is not revealed. */
  private readable(documentId: string, found: DocumentWithAccess | null, user: AuthenticatedUser): Document {
    if (!found || !this.policy.canRead(user, found)) {
      throw new ApiError('document_not_found', `No document has the id ${documentId}.`);
    }
    return found.document;
  }

  /** The document, if it exists and this user may change it (404 when they may not even read it). */
  private updatable(documentId: string, found: DocumentWithAccess | null, user: AuthenticatedUser): Document {
    const document = this.readable(documentId, found, user);
    if (!this.policy.canChange(user, found!)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader (while a contributor of the project), a project manager or a user whose role ' +
          'grants documents:update may change this document.',
      );
    }
    return document;
  }

  /** The write that takes `document` to `input` (with its history row), or undefined when nothing changes. */
  private plan(document: Document, input: UpdateDocumentDto, user: AuthenticatedUser): DocumentWrite | undefined {
    const next: EditableDocumentFields = {
      title: input.title,
      description: input.description,
      tags: input.tags === undefined ? undefined : normalizeTags(input.tags),
      metadata: input.metadata,
    };
    const changes: Partial<Record<EditableField, FieldChange>> = {};
    const values: EditableDocumentFields = {};
    for (const field of EDITABLE_FIELDS) {
      const value = next[field];
      if (value === undefined || JSON.stringify(value) === JSON.stringify(document[field])) continue;
      changes[field] = { from: document[field], to: value };
      Object.assign(values, { [field]: value });
    }
    if (Object.keys(changes).length === 0) return undefined;

    // updatedAt strictly increases even when two writes land in the same millisecond.
    const updatedAt = new Date(Math.max(Date.now(), document.updatedAt.getTime() + 1));
    const rowVersion = document.rowVersion + 1;
    const history = Object.assign(new DocumentHistory(), {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: updatedAt,
      rowVersion,
      changes,
      action: 'updated',
    });
    const event: DomainEvent = {
      type: 'document.updated',
      actorId: user.id,
      projectId: document.projectId,
      documentId: document.id,
      subjectUserId: null,
      payload: { title: values.title ?? document.title, actorName: user.username, fields: Object.keys(changes) },
    };
    return { from: document, values, updatedAt, rowVersion, history, event };
  }
}

/** The document as it is once `write` has landed. */
function updated(write: DocumentWrite): Document {
  return Object.assign(new Document(), write.from, write.values, {
    updatedAt: write.updatedAt,
    rowVersion: write.rowVersion,
  });
}

/** An archived document's metadata and files stay as they are until it is moved back to draft. */
export function refuseArchived(document: Pick<Document, 'status'>): void {
  if (document.status === 'archived') {
    throw new ApiError('document_archived', 'The document is archived; move it back to draft to change it.');
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
