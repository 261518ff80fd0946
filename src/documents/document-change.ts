import { randomUUID } from 'node:crypto';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import type { DomainEvent, DomainEventType } from '../events/domain-event.js';
import { DocumentHistory, type DocumentHistoryAction, type FieldChange } from './entities/document-history.entity.js';
import type { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';

/** The fields a change may set on the document row. */
export type WritableDocumentFields = Partial<
  Pick<
    Document,
    | 'title'
    | 'description'
    | 'tags'
    | 'metadata'
    | 'fields'
    | 'documentTypeId'
    | 'status'
    | 'deletedAt'
    | 'deletedBy'
    | 'fileName'
    | 'fileSize'
    | 'mimeType'
    | 'sha256'
    | 'currentVersion'
  >
>;

/**
 * One change of a document, written whole or not at all (DocumentsRepository.applyChange): the
 * row moves from `from` to `document` (rowVersion + 1), with its history entry, its event and,
 * for a new file, its version row. Its author becomes a participant of the document.
 */
export interface DocumentChange {
  /** The document as read; the write lands only while the row still has its rowVersion. */
  from: Document;
  /** The document once the change has landed. */
  document: Document;
  values: WritableDocumentFields;
  history: DocumentHistory;
  event: DomainEvent;
  version?: DocumentVersion;
}

export interface ChangeDescription {
  action: DocumentHistoryAction;
  event: DomainEventType;
  values: WritableDocumentFields;
  /** What the history records; default: every value, from the old to the new. */
  changes?: Record<string, FieldChange>;
  /** Extra event payload besides title and actorName. */
  payload?: Record<string, unknown>;
  version?: DocumentVersion;
  /** The writer asks to release their own check-out lock with this change (a new version with ?unlock=true). */
  releaseLock?: boolean;
}

/** The one builder of a change: the next row (updatedAt strictly later, rowVersion + 1), history and event. */
export function documentChange(
  from: Document,
  user: AuthenticatedUser,
  description: ChangeDescription,
): DocumentChange {
  // updatedAt strictly increases even when two writes land in the same millisecond.
  const updatedAt = new Date(Math.max(Date.now(), from.updatedAt.getTime() + 1));
  const document = Object.assign(new Document(), from, description.values, {
    updatedAt,
    rowVersion: from.rowVersion + 1,
  });
  const changes =
    description.changes ??
    Object.fromEntries(
      Object.entries(description.values).map(([field, to]) => [field, { from: from[field as keyof Document], to }]),
    );
  const history = Object.assign(new DocumentHistory(), {
    id: randomUUID(),
    documentId: from.id,
    changedBy: user.id,
    changedAt: updatedAt,
    rowVersion: document.rowVersion,
    changes,
    action: description.action,
  } satisfies DocumentHistory);
  const event: DomainEvent = {
    type: description.event,
    actorId: user.id,
    projectId: from.projectId,
    documentId: from.id,
    subjectUserId: null,
    payload: { title: document.title, actorName: user.username, ...description.payload },
  };
  // A new version is recorded at the moment the document moves to it.
  const version = description.version && Object.assign(description.version, { createdAt: updatedAt });
  return { from, document, values: description.values, history, event, version };
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

/** 412 with the document's current ETag, so a client can retry without a GET. */
export function stale(current: Pick<Document, 'rowVersion'>): ApiError {
  return new ApiError(
    'precondition_failed',
    `If-Match does not match the document's current ETag ${etagOf(current)}; fetch it again and retry.`,
    { etag: etagOf(current) },
  );
}

/** 412 unless If-Match is absent or names the document's current version. */
export function checkIfMatch(ifMatch: string | undefined, document: Pick<Document, 'rowVersion'>): void {
  if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
}

/** An archived document's metadata and files stay as they are until it is moved back to draft. */
export function refuseArchived(document: Pick<Document, 'status'>): void {
  if (document.status === 'archived') {
    throw new ApiError('document_archived', 'The document is archived; move it back to draft to change it.');
  }
}
