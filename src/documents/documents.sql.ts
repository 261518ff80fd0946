// The document update's statements, owned by DocumentsRepository (the only caller in src/). Pure
// text with no runtime imports, so the bench's baseline server and its EXPLAIN check run this one
// copy without loading Nest or TypeORM. Identifiers are plain camelCase names (see the
// InitialSchema migration): no quoting on either database.

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

/**
 * One document by id, unless it is in the trash, with the caller's role in its project (`callerProjectRole`, null when not a
 * member): what the access policy needs, in one statement. Parameters: caller id, document id.
 * `forUpdate` adds a row lock (MySQL only: SQLite serialises writers and has no FOR UPDATE).
 */
export function documentByIdSql(forUpdate = false): string {
  return (
    `SELECT ${DOCUMENT_COLUMNS.map((column) => `d.${column}`).join(', ')}, pm.role AS callerProjectRole ` +
    'FROM documents d LEFT JOIN project_members pm ON pm.projectId = d.projectId AND pm.userId = ? ' +
    `WHERE d.id = ? AND d.deletedAt IS NULL${forUpdate ? ' FOR UPDATE' : ''}`
  );
}

/**
 * The conditional UPDATE: the given fields, then updatedAt and rowVersion, only while the row
 * still has the version the change was computed from (a concurrent write makes it match no row).
 * Parameters: the fields' values, updatedAt, the new rowVersion, id, the expected rowVersion.
 */
export function documentUpdateSql(fields: readonly string[]): string {
  const assignments = [...fields, 'updatedAt', 'rowVersion'].map((field) => `${field} = ?`);
  return `UPDATE documents SET ${assignments.join(', ')} WHERE id = ? AND rowVersion = ?`;
}

/** The history row written in the same transaction as the update; parameters in DOCUMENT_HISTORY_COLUMNS order. */
export const DOCUMENT_HISTORY_INSERT_SQL =
  `INSERT INTO document_history (${DOCUMENT_HISTORY_COLUMNS.join(', ')}) ` +
  `VALUES (${DOCUMENT_HISTORY_COLUMNS.map(() => '?').join(', ')})`;
