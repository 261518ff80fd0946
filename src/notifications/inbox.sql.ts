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

/** Every unread notification of the user created at or before `before` (and matching the filters) becomes read. */
export function readAllStatement(userId: string, filters: ReadAllFilters, before: unknown, at: unknown): SqlStatement {
  const conditions = ['userId = ?', 'readAt IS NULL', 'createdAt <= ?'];
  const parameters: unknown[] = [at, userId, before];
  if (filters.type) {
    conditions.push('notificationType = ?');
    parameters.push(filters.type);
  }
  if (filters.status) {
    conditions.push('status = ?');
    parameters.push(filters.status);
  }
  return [
    `UPDATE notifications SET readAt = ?,
       deliveryStatus = COALESCE(deliveryStatus, CASE WHEN status = 'read' THEN 'sent' ELSE status END), status = 'read'
     WHERE ${conditions.join(' AND ')}`,
    parameters,
  ];
}

/** Unread totals by type from the trigger-kept counts (at most 16 rows), not a COUNT over notifications. */
export function unreadByTypeStatement(userId: string): SqlStatement {
  return [
    `SELECT notificationType, COALESCE(SUM(total), 0) AS total FROM notification_counts
     WHERE userId = ? AND isRead = 0 GROUP BY notificationType`,
    [userId],
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
