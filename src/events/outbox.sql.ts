// The outbox's statements: pure text without runtime imports, so the bench's baseline runs the same copy.

/** Every column of `outbox_events`, in entity order. */
export const OUTBOX_COLUMNS = [
  'id',
  'type',
  'actorId',
  'projectId',
  'documentId',
  'subjectUserId',
  'payload',
  'createdAt',
  'dispatchedAt',
] as const;

export const OUTBOX_INSERT_SQL = `INSERT INTO outbox_events (${OUTBOX_COLUMNS.join(', ')}) VALUES (${OUTBOX_COLUMNS.map(() => '?').join(', ')})`;
