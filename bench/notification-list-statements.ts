// The notification list's statements as the service ran them before it read through TypeORM: a copy
// for the EXPLAIN check, which runs them on the bench databases without Nest or TypeORM.
// Identifiers are plain camelCase names (see the InitialSchema migration): no quoting on either database.
/** A statement and its parameters. */
type SqlStatement = [sql: string, parameters: unknown[]];

/** The columns a list page answers (NotificationDto's fields, in its order). */
export const NOTIFICATION_LIST_COLUMNS = [
  'id',
  'userId',
  'subject',
  'message',
  'notificationType',
  'status',
  'readAt',
  'createdAt',
  'event',
  'documentId',
] as const;

/**
 * A page's select list: the list columns, with the two dates as their stored text
 * ('YYYY-MM-DD HH:MM:SS.mmm', UTC, on both databases: MariaDB sends a DATETIME as that text
 * anyway, SQLite stores it) under names of their own (storedReadAt, storedCreatedAt), so that
 * ORDER BY createdAt still means the indexed column. The rows go straight to JSON: no Date object
 * per value, and no per-query driver option (mysql2 spreads a query's options object: ~7 µs per
 * query on Node 20).
 */
function pageColumns(table: '' | 'n.'): string {
  const storedAs: Partial<Record<string, string>> = { readAt: 'storedReadAt', createdAt: 'storedCreatedAt' };
  return NOTIFICATION_LIST_COLUMNS.map((column) =>
    storedAs[column] ? `CAST(${table}${column} AS CHAR) AS ${storedAs[column]}` : `${table}${column}`,
  ).join(', ');
}
const PAGE_COLUMNS = pageColumns('');
const JOINED_PAGE_COLUMNS = pageColumns('n.');

/** Every column of `notifications`, in entity order (checked against the entity in the repository spec). */
export const NOTIFICATION_COLUMNS = [
  ...NOTIFICATION_LIST_COLUMNS,
  'sourceEventId',
  'deliveryStatus',
  'attempts',
  'nextAttemptAt',
] as const;

export interface NotificationListFilters {
  status?: string;
  type?: string;
  unreadOnly?: boolean;
}

/** A keyset position: the last (createdAt, id) already seen, createdAt in the driver's stored form. */
export interface NotificationSeekPosition {
  createdAt: unknown;
  id: string;
}

/** The filters as conditions on one table, in the same parameter order for the count and the page. */
function filterConditions(
  filters: NotificationListFilters,
  unreadCondition: string,
): { conditions: string[]; parameters: unknown[] } {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  if (filters.status) {
    conditions.push('status = ?');
    parameters.push(filters.status);
  }
  if (filters.type) {
    conditions.push('notificationType = ?');
    parameters.push(filters.type);
  }
  if (filters.unreadOnly) conditions.push(unreadCondition);
  return { conditions, parameters };
}

/**
 * The exact total for the filters: a sum over at most 32 trigger-maintained rows of
 * `notification_counts` (primary key userId, status, notificationType, isRead) instead of a
 * COUNT over every notification of the user.
 */
export function notificationCountStatement(userId: string, filters: NotificationListFilters): SqlStatement {
  const { conditions, parameters } = filterConditions(filters, 'isRead = 0');
  const where = ['userId = ?', ...conditions].join(' AND ');
  return [`SELECT COALESCE(SUM(total), 0) AS total FROM notification_counts WHERE ${where}`, [userId, ...parameters]];
}

/**
 * The ids of one page, newest first, from the (userId, [filter,] createdAt, id) index alone: a
 * deep OFFSET skips index entries rather than rows. After a position it is a keyset seek, written
 * with a bare upper bound on createdAt so SQLite, too, seeks into the index range.
 */
export function notificationIdsStatement(
  userId: string,
  filters: NotificationListFilters,
  take: number,
  offset: number,
  after?: NotificationSeekPosition,
): SqlStatement {
  return orderedStatement('id, createdAt', userId, filters, take, offset, after);
}

/** `columns` (a select list) of the matching notifications, newest first, in the index's own order. */
function orderedStatement(
  columns: string,
  userId: string,
  filters: NotificationListFilters,
  take: number,
  offset: number,
  after?: NotificationSeekPosition,
): SqlStatement {
  const filter = filterConditions(filters, 'readAt IS NULL');
  const parameters: unknown[] = [userId, ...filter.parameters];
  let where = ['userId = ?', ...filter.conditions].join(' AND ');
  if (after) {
    // The bare bound lets SQLite seek; the OR spelled out per createdAt lets MariaDB seek within
    // rows of one instant too (`createdAt < ? OR id < ?` read every row sharing the position's
    // createdAt: 10,000 index entries for 21 when a bulk import stamped them alike).
    where += ' AND createdAt <= ? AND (createdAt < ? OR (createdAt = ? AND id < ?))';
    parameters.push(after.createdAt, after.createdAt, after.createdAt, after.id);
  }
  parameters.push(take, offset);
  return [
    `SELECT ${columns} FROM notifications WHERE ${where} ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?`,
    parameters,
  ];
}

/** Below this offset a page is read straight off the index; from it on, the deferred join pays. */
export const DEFERRED_JOIN_FROM = 1000;

/** Whether notificationPageStatement reads this page through the deferred join (a derived table). */
export function pageIsDeferredJoin(offset: number, after?: unknown, deferredJoinFrom = DEFERRED_JOIN_FROM): boolean {
  return Boolean(after) || offset >= deferredJoinFrom;
}

/**
 * One page in one statement (pageColumns). Near the top (offset below DEFERRED_JOIN_FROM)
 * the rows come straight off the (userId, [filter,] createdAt, id) index in its order, with
 * nothing to sort. Deeper, a deferred join: the ids statement as a derived table, joined back to
 * the rows, so the skipped entries are index entries, not rows (the page is sorted once more).
 */
export function notificationPageStatement(
  userId: string,
  filters: NotificationListFilters,
  take: number,
  offset: number,
  after?: NotificationSeekPosition,
  deferredJoinFrom = DEFERRED_JOIN_FROM,
): SqlStatement {
  // After a cursor position, too, the deferred join: MariaDB may walk the user's index entries down
  // to the position (ref access) rather than seek, and then only index entries are walked, not rows
  // (the full bench: 42 req/s at page 500 reading rows, about page 1's rate reading the index).
  if (!pageIsDeferredJoin(offset, after, deferredJoinFrom)) {
    return orderedStatement(PAGE_COLUMNS, userId, filters, take, offset, after);
  }
  const [ids, parameters] = notificationIdsStatement(userId, filters, take, offset, after);
  return [
    `SELECT ${JOINED_PAGE_COLUMNS} FROM notifications n JOIN (${ids}) p ON p.id = n.id ORDER BY p.createdAt DESC, p.id DESC`,
    parameters,
  ];
}
