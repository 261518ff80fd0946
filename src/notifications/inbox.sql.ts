// The inbox's statements (one notification, read state, counts, preferences, stream tickets).
// Pure text builders like notifications.sql.ts; timestamps arrive in the driver's stored form.
import type { SqlStatement } from '../database/sql-runner.js';
import { NOTIFICATION_COLUMNS } from './notifications.sql.js';

const COLUMNS = NOTIFICATION_COLUMNS.join(', ');

export function ownNotificationStatement(userId: string, id: string): SqlStatement {
  return [`SELECT ${COLUMNS} FROM notifications WHERE id = ? AND userId = ?`, [id, userId]];
}

/** Read: readAt kept if already set, status `read`. Changes nothing when already so. */
export function markReadStatement(userId: string, id: string, at: unknown): SqlStatement {
  return [
    `UPDATE notifications SET readAt = COALESCE(readAt, ?),
       deliveryStatus = COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END), status = 'read'
     WHERE id = ? AND userId = ? AND (readAt IS NULL OR status <> 'read')`,
    [at, id, userId],
  ];
}

/** Unread: readAt null, status back to the delivery status. Changes nothing when already so. */
export function markUnreadStatement(userId: string, id: string): SqlStatement {
  return [
    `UPDATE notifications SET readAt = NULL, status = COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END)
     WHERE id = ? AND userId = ?
       AND (readAt IS NOT NULL OR status <> COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END))`,
    [id, userId],
  ];
}

export interface ReadAllFilters {
  type?: string;
  status?: string;
}

/** Where a read-all chunk resumes: after this (createdAt, id) in the read-state index's order. */
export interface ReadAllPosition {
  createdAt: unknown;
  id: string;
}

/**
 * The next `limit` unread notifications of the user created at or before `before` (and matching
 * the filters), in (createdAt, id) order after `after`: one read-all chunk, walked on
 * IDX_notifications_user_read_created. `lock` (MySQL) locks the rows so the chunk's count upkeep
 * is computed from exactly the rows its UPDATE changes.
 */
export function readAllChunkStatement(
  userId: string,
  filters: ReadAllFilters,
  before: unknown,
  after: ReadAllPosition | null,
  limit: number,
  lock: boolean,
): SqlStatement {
  const conditions = ['userId = ?', 'readAt IS NULL', 'createdAt <= ?'];
  const parameters: unknown[] = [userId, before];
  if (after) {
    conditions.push('(createdAt > ? OR (createdAt = ? AND id > ?))');
    parameters.push(after.createdAt, after.createdAt, after.id);
  }
  if (filters.type) {
    conditions.push('notificationType = ?');
    parameters.push(filters.type);
  }
  if (filters.status) {
    conditions.push('status = ?');
    parameters.push(filters.status);
  }
  parameters.push(limit);
  return [
    `SELECT id, status, notificationType, createdAt FROM notifications
     WHERE ${conditions.join(' AND ')} ORDER BY createdAt, id LIMIT ?${lock ? ' FOR UPDATE' : ''}`,
    parameters,
  ];
}

/** The chunk's rows that are still unread become read (readAt set, status `read`, delivery status kept). */
export function readByIdsStatement(userId: string, ids: string[], at: unknown): SqlStatement {
  return [
    `UPDATE notifications SET readAt = ?,
       deliveryStatus = COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END), status = 'read'
     WHERE userId = ? AND readAt IS NULL AND id IN (${ids.map(() => '?').join(', ')})`,
    [at, userId, ...ids],
  ];
}

/** A change of notification_counts: `delta` more (or fewer) rows under this key. */
export interface CountDelta {
  status: string;
  notificationType: string;
  isRead: 0 | 1;
  delta: number;
}

/** MySQL: applies the deltas in one statement (an existing key changes by its delta, a new one starts at it). */
export function applyCountDeltasStatement(userId: string, deltas: CountDelta[]): SqlStatement {
  return [
    `INSERT INTO notification_counts (userId, status, notificationType, isRead, total)
     VALUES ${deltas.map(() => '(?, ?, ?, ?, ?)').join(', ')}
     ON DUPLICATE KEY UPDATE total = total + VALUES(total)`,
    deltas.flatMap((d) => [userId, d.status, d.notificationType, d.isRead, d.delta]),
  ];
}

/**
 * MariaDB/MySQL session variable: while set, the notifications update trigger (migration 0031)
 * leaves notification_counts alone, because a bulk read-all adjusts it once per chunk itself.
 */
export const COUNTS_BY_STATEMENT_FLAG = '@dms_counts_by_statement';

/** Unread totals by type from the trigger-kept counts (at most 16 rows), not a COUNT over notifications. */
export function unreadByTypeStatement(userId: string): SqlStatement {
  return [
    `SELECT notificationType, COALESCE(SUM(total), 0) AS total FROM notification_counts
     WHERE userId = ? AND isRead = 0 GROUP BY notificationType`,
    [userId],
  ];
}

/**
 * The same totals, read only for a live session (the user exists, is active and the token's version
 * is current): no row means the session is not live. One round trip does the route's session check
 * and its work (see SessionCheckedByQuery); a user without counts gets one row with a null type.
 */
export function unreadByTypeInSessionStatement(session: { userId: string; tokenVersion: number }): SqlStatement {
  return [
    `SELECT c.notificationType AS notificationType, COALESCE(SUM(c.total), 0) AS total
     FROM users u LEFT JOIN notification_counts c ON c.userId = u.id AND c.isRead = 0
     WHERE u.id = ? AND u.isActive = 1 AND u.tokenVersion = ?
     GROUP BY c.notificationType`,
    [session.userId, session.tokenVersion],
  ];
}

export function deleteOwnStatement(userId: string, id: string): SqlStatement {
  return ['DELETE FROM notifications WHERE id = ? AND userId = ?', [id, userId]];
}

/** The user's notifications after (createdAt, id), oldest first: a stream's Last-Event-ID replay. */
export function newerThanStatement(userId: string, createdAt: unknown, id: string, limit: number): SqlStatement {
  return [
    `SELECT ${COLUMNS} FROM notifications
     WHERE userId = ? AND createdAt >= ? AND (createdAt > ? OR id > ?)
     ORDER BY createdAt, id LIMIT ?`,
    [userId, createdAt, createdAt, id, limit],
  ];
}
