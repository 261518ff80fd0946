import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import type { DomainEvent } from '../events/domain-event.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import {
  DocumentsRepository,
  type DocumentWithAccess,
  type DocumentWrite,
  type EditableDocumentFields,
} from './documents.repository.js';
import type { UpdateDocumentDto } from './dto/update-document.dto.js';
import { DocumentHistory, type FieldChange } from './entities/document-history.entity.js';
import { Document } from './entities/document.entity.js';

type EditableField = keyof EditableDocumentFields;
const EDITABLE_FIELDS: EditableField[] = ['title', 'description', 'tags', 'metadata'];

/** At most this many history entries are listed. */
const HISTORY_LIMIT = 500;

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
  constructor(
    private readonly documents: DocumentsRepository,
    private readonly policy: DocumentAccessPolicy,
  ) {}

  /**
   * Applies the given fields (omitted ones keep their value) with a write conditional on the row
   * version plus a history row, in one transaction. With If-Match a stale version is 412 (with
   * the current ETag). Without it, a lost race falls back to a locked read-modify-write, so the
   * update always lands whole and never becomes a 412 the client did not ask for.
   */
  async update(
    documentId: string,
    input: UpdateDocumentDto,
    user: AuthenticatedUser,
    ifMatch?: string,
  ): Promise<Document> {
    const document = this.updatable(documentId, await this.documents.findById(documentId, user.id), user);
    if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
    const write = this.plan(document, input, user);
    if (!write) return document;

    if (await this.documents.writeIfUnchanged(write)) return updated(write);
    if (ifMatch !== undefined) {
      // Someone else wrote first: answer with the version they left.
      throw stale(this.updatable(documentId, await this.documents.findById(documentId, user.id), user));
    }
    return this.documents.updateLocked(documentId, user.id, (current) => {
      const locked = this.updatable(documentId, current, user);
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

/** 412 with the document's current ETag, so a client can retry without a GET. */
function stale(current: Document): ApiError {
  return new ApiError(
    'precondition_failed',
    `If-Match does not match the document's current ETag ${etagOf(current)}; fetch it again and retry.`,
    { etag: etagOf(current) },
  );
}
