// The service's former hand-written document statements (src/documents/documents.sql.ts until the
// documents feature moved to TypeORM), kept for the bench's baseline server and EXPLAIN checks only.

import { CALLER_COLUMNS, CALLER_FROM } from '../../src/users/users.sql.js';

/** Every column of `documents`, in entity order (checked against the entity in the repository spec). */
export const DOCUMENT_COLUMNS = [
  'id',
  'projectId',
  'documentTypeId',
  'title',
  'description',
  'fileName',
  'fileSize',
  'mimeType',
  'currentVersion',
  'status',
  'tags',
  'metadata',
  'uploadedBy',
  'rowVersion',
  'createdAt',
  'updatedAt',
  'sha256',
  'deletedAt',
  'deletedBy',
] as const;

/** Every column of `document_history`, in entity order. */
export const DOCUMENT_HISTORY_COLUMNS = [
  'id',
  'documentId',
  'changedBy',
  'changedAt',
  'rowVersion',
  'changes',
  'action',
] as const;

/** A document's columns and the caller's role in its project (`pm`: project_members joined on the caller). */
const DOCUMENT_WITH_CALLER_ROLE = `${DOCUMENT_COLUMNS.map((column) => `d.${column}`).join(', ')}, pm.role AS callerProjectRole`;

/**
 * One document by id, unless it is in the trash, with the caller's role in its project (`callerProjectRole`, null when not a
 * member): what the access policy needs, in one statement. Parameters: caller id, document id.
 * `forUpdate` adds a row lock (MySQL only: SQLite serialises writers and has no FOR UPDATE).
 */
export function documentByIdSql(forUpdate = false): string {
  return (
    `SELECT ${DOCUMENT_WITH_CALLER_ROLE} ` +
    'FROM documents d LEFT JOIN project_members pm ON pm.projectId = d.projectId AND pm.userId = ? ' +
    `WHERE d.id = ? AND d.deletedAt IS NULL${forUpdate ? ' FOR UPDATE' : ''}`
  );
}

/**
 * A document's participants: its uploader, every history entry's author (whoever changed its
 * metadata or status, added a version, trashed or restored it) and every version's uploader.
 * Parameters: the document id, three times.
 */
export const DOCUMENT_PARTICIPANTS_SQL =
  'SELECT uploadedBy AS userId FROM documents WHERE id = ? ' +
  'UNION SELECT changedBy FROM document_history WHERE documentId = ? ' +
  'UNION SELECT uploadedBy FROM document_versions WHERE documentId = ?';

/**
 * Whether anyone besides the caller (`u`) is among the participants of the document `d`
 * (DOCUMENT_PARTICIPANTS_SQL's three sources): 1 or 0, NULL without a document. The history's
 * authors as two ranges of IDX_document_history_author (SQLite seeks neither `<>` nor an OR of
 * ranges: it would read the document's whole history); versions are few per document.
 */
const OTHERS_TAKE_PART =
  '(d.uploadedBy <> u.id' +
  ' OR EXISTS (SELECT 1 FROM document_history h WHERE h.documentId = d.id AND h.changedBy < u.id)' +
  ' OR EXISTS (SELECT 1 FROM document_history h WHERE h.documentId = d.id AND h.changedBy > u.id)' +
  ' OR EXISTS (SELECT 1 FROM document_versions v WHERE v.documentId = d.id AND v.uploadedBy <> u.id)) AS othersTakePart';

/**
 * documentByIdSql's document led by the caller's session and roles (CALLER_COLUMNS), for routes
 * that check the session in their own statement: one row per role of the caller, the document's
 * columns NULL when there is no such live document, and no row when the caller does not exist.
 * `withOthersTakePart` adds the column `othersTakePart` (OTHERS_TAKE_PART). Parameters: document id, caller id.
 */
export function documentWithCallerSql(withOthersTakePart = false): string {
  const others = withOthersTakePart ? `, ${OTHERS_TAKE_PART}` : '';
  return (
    `SELECT ${CALLER_COLUMNS}, ${DOCUMENT_WITH_CALLER_ROLE}${others} FROM ${CALLER_FROM} ` +
    'LEFT JOIN documents d ON d.id = ? AND d.deletedAt IS NULL ' +
    'LEFT JOIN project_members pm ON pm.projectId = d.projectId AND pm.userId = u.id WHERE u.id = ?'
  );
}
