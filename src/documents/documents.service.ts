import { Injectable } from '@nestjs/common';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions } from '../database/transactions.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { checkIfMatch, refuseArchived } from './document-change.js';
import { decodeDocumentCursor, type DocumentCursor } from './document-cursor.js';
import {
  DocumentSearchRepository,
  isFieldSort,
  sortColumn,
  type DocumentListFilters,
  type DocumentVisibility,
  type ListedContent,
  type KeysetSort,
} from './document-search.repository.js';
import { DocumentWrites } from './document-writes.js';
import { DocumentsRepository, type DocumentWithAccess } from './documents.repository.js';
import type { ListDocumentsQueryDto } from './dto/list-documents-query.dto.js';
import type { UpdateDocumentDto } from './dto/update-document.dto.js';
import { DocumentFields } from './document-fields.js';
import type { DocumentHistory, FieldChange } from './entities/document-history.entity.js';
import type { Document, DocumentStatus } from './entities/document.entity.js';

const EDITABLE_FIELDS = ['title', 'description', 'tags', 'metadata', 'documentTypeId', 'fields'] as const;

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

const WORDS = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Words of a search: runs of letters and digits; all but the last need 3+ characters (InnoDB's
 * minimum). Words in double quotes stay together as one phrase item ("w1 w2", words joined by a
 * space), matched as a phrase; a phrase is never a prefix.
 */
export function searchWords(q: string): string[] {
  const items: string[] = [];
  const parts = q.normalize('NFKC').split('"');
  parts.forEach((part, index) => {
    const words = part.match(WORDS) ?? [];
    // Odd parts are inside quotes (an unclosed quote runs to the end).
    if (index % 2 === 1 && words.length > 1) items.push(words.join(' '));
    else items.push(...words);
  });
  const last = items.length - 1;
  return items.filter((item, index) => item.includes(' ') || index === last || Array.from(item).length >= 3);
}

export interface DocumentPage {
  documents: Document[];
  /** Each document's current-version content state, read with the page (null: none recorded, pending). */
  contents: ListedContent[];
  total: number;
  /** False when total is a lower bound (a tags or updated-range filter matched more than COUNT_CAP). */
  totalIsExact: boolean;
  /** Position after the last item, when more items follow (never for relevance). */
  next: DocumentCursor | null;
}

/** A field value as its typed row holds it (a boolean as 0/1), for a cursor. */
function fieldSortValue(value: unknown): number | string {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' ? value : String(value);
}

/** Drops duplicates keeping the first occurrence (tags arrive already trimmed by the DTO). */
export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

/** A document's metadata: list and search, read, update, history, and its review workflow. */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly documents: DocumentsRepository,
    private readonly search: DocumentSearchRepository,
    private readonly writes: DocumentWrites,
    private readonly policy: DocumentAccessPolicy,
    private readonly fields: DocumentFields,
    private readonly transactions: Transactions,
  ) {}

  /**
   * The documents the caller may read (their projects' and their own uploads; everything with
   * documents:read), never trashed ones, filtered (AND), sorted, with the total. A page number
   * is an OFFSET; a cursor (every sort but relevance) continues right after the item it names.
   */
  async list(
    query: ListDocumentsQueryDto,
    user: AuthenticatedUser,
    fieldParameters: Record<string, string> = {},
  ): Promise<DocumentPage> {
    if (query.cursor !== undefined && query.page !== undefined) {
      throw new ApiError('validation_failed', 'Send either page or cursor, not both.');
    }
    const words = query.q === undefined ? undefined : searchWords(query.q);
    const sort = query.sort ?? (words ? 'relevance' : '-updatedAt');
    if (sort === 'relevance' && !words) throw new ApiError('validation_failed', 'sort=relevance needs q.');
    if (sort === 'relevance' && query.cursor !== undefined) {
      throw new ApiError('validation_failed', 'sort=relevance pages by page only; cursor is not available.');
    }
    if (words && isFieldSort(sort)) throw new ApiError('validation_failed', 'sort=field.<key> cannot be used with q.');
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
      updatedFrom: query.updatedFrom === undefined ? undefined : this.search.stored(new Date(query.updatedFrom)),
      updatedTo: query.updatedTo === undefined ? undefined : this.search.stored(new Date(query.updatedTo)),
      fields: await this.fields.listTerms(query.documentTypeId, fieldParameters, isFieldSort(sort) ? sort : undefined),
    };
    const visibility: DocumentVisibility = hasPermission(user, 'documents', 'read')
      ? { all: true }
      : {
          all: false,
          userId: user.id,
          projectIds: [...(user.projectIds ?? (await this.search.memberProjects(user.id)))].sort(),
        };

    const offset = after ? 0 : ((query.page ?? 1) - 1) * query.limit;
    const position = after && {
      value:
        typeof after.value === 'number' && !isFieldSort(sort) ? this.search.stored(new Date(after.value)) : after.value,
      id: after.id,
    };
    // One row more than the page tells whether anything follows.
    const {
      documents: rows,
      contents,
      total,
      totalIsExact,
    } = await this.search.page(visibility, filters, sort, query.limit + 1, offset, position);
    const documents = rows.slice(0, query.limit);
    const last = documents.at(-1);
    let next: DocumentCursor | null = null;
    if (sort !== 'relevance' && rows.length > query.limit && last) {
      const column = sortColumn(sort);
      next = {
        sort,
        value: isFieldSort(sort)
          ? fieldSortValue(last.fields?.[column.slice('field.'.length)])
          : column === 'title'
            ? last.title
            : last[column as 'updatedAt'].getTime(),
        id: last.id,
      };
    }
    return { documents, contents: contents.slice(0, query.limit), total, totalIsExact, next };
  }

  /**
   * Which of `qs` (each a list's q) the document's searched text matches as list() would search
   * it, without the reader's visibility or other filters (the caller applies those).
   */
  textMatches(documentId: string, qs: readonly string[]): Promise<boolean[]> {
    return this.transactions.run((tx) => this.search.textMatches(tx, documentId, qs.map(searchWords)), {
      readCommitted: true,
    });
  }

  /** The document, for a reader (else 404). */
  async get(documentId: string, user: AuthenticatedUser): Promise<Document> {
    return (await this.readableAccess(documentId, user)).document;
  }

  /** The document with the reader's project role, for features that hang off documents (else 404). */
  async readableAccess(documentId: string, user: AuthenticatedUser): Promise<DocumentWithAccess> {
    const found = await this.documents.find(documentId, user.id);
    this.policy.readable(documentId, found, user);
    return found!;
  }

  /**
   * Applies the given fields (omitted ones keep their value) with a history row, in one
   * transaction. With If-Match a stale version is 412 (with the current ETag).
   */
  update(documentId: string, input: UpdateDocumentDto, user: AuthenticatedUser, ifMatch?: string): Promise<Document> {
    return this.writes.change(documentId, user, async (found, tx) => {
      const current = this.policy.changeable(documentId, found, user);
      checkIfMatch(ifMatch, current);
      refuseArchived(current);
      const typeChanged = input.documentTypeId !== undefined && input.documentTypeId !== current.documentTypeId;
      const documentTypeId = input.documentTypeId ?? current.documentTypeId;
      const next = {
        title: input.title,
        description: input.description,
        tags: input.tags === undefined ? undefined : normalizeTags(input.tags),
        metadata: input.metadata,
        documentTypeId,
        // Custom field values: merged and checked by the fields feature (a new type checks them all again).
        fields:
          input.fields === undefined && !typeChanged
            ? undefined
            : await this.fields.resolve(tx, documentTypeId, current.fields ?? {}, input.fields, typeChanged),
      };
      const changes: Record<string, FieldChange> = {};
      const values: Record<string, unknown> = {};
      for (const field of EDITABLE_FIELDS) {
        const value = next[field];
        if (
          value === undefined ||
          JSON.stringify(value) === JSON.stringify(current[field] ?? (field === 'fields' ? {} : null))
        )
          continue;
        changes[field] = { from: current[field], to: value };
        values[field] = value;
      }
      if (Object.keys(changes).length === 0) return { current };
      return {
        current,
        change: {
          action: 'updated',
          event: 'document.updated',
          values,
          changes,
          payload: { fields: Object.keys(changes) },
        },
      };
    });
  }

  /** Moves a document along the review workflow (DOCUMENT_TRANSITIONS); `eventPayload` joins its event's payload. */
  changeStatus(
    documentId: string,
    to: DocumentStatus,
    user: AuthenticatedUser,
    ifMatch?: string,
    eventPayload: Record<string, unknown> = {},
  ): Promise<Document> {
    return this.writes.change(documentId, user, (found) => {
      const current = this.policy.readable(documentId, found, user);
      const rule = DOCUMENT_TRANSITIONS[current.status]?.[to];
      if (!rule) {
        throw new ApiError('invalid_transition', `A document cannot move from ${current.status} to ${to}.`);
      }
      const allowed = rule === 'change' ? this.policy.canChange(user, found!) : this.policy.canPublish(user, found!);
      if (!allowed) {
        throw new ApiError(
          'forbidden',
          rule === 'change'
            ? 'Only the uploader (while a contributor of the project), a project manager or a user whose role grants documents:update may submit this document for review.'
            : `Only a project manager or a user whose role grants documents:publish may move a document from ${current.status} to ${to}.`,
        );
      }
      checkIfMatch(ifMatch, current);
      return {
        current,
        change: {
          action: 'status_changed',
          event: 'document.status_changed',
          values: { status: to },
          payload: { ...eventPayload, from: current.status, to },
        },
      };
    });
  }

  async history(documentId: string, user: AuthenticatedUser): Promise<DocumentHistory[]> {
    await this.get(documentId, user);
    return this.documents.history(documentId, HISTORY_LIMIT);
  }
}
