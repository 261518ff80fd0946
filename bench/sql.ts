// The statements of the baseline server (MySQL and SQLite both accept backtick identifiers).
// They mirror what the service's TypeORM code sends; the bench prints both side by side.

export const USER_SELECT =
  'SELECT u.`id`, u.`username`, u.`email`, u.`firstName`, u.`lastName`, u.`isActive`, u.`tokenVersion`, u.`createdAt`, ' +
  'r.`id` AS roleId, r.`name` AS roleName, r.`permissions` AS rolePermissions';
const USER_JOIN =
  ' FROM `users` u LEFT JOIN `user_roles` ur ON ur.`userId` = u.`id` LEFT JOIN `roles` r ON r.`id` = ur.`roleId`';
/** UsersService.findWithRoles: users LEFT JOIN user_roles LEFT JOIN roles, by id. */
export const USER_BY_ID = `${USER_SELECT}${USER_JOIN} WHERE u.\`id\` = ?`;
/** UsersService.findForLogin: the same plus the password hash, by username. */
export const USER_BY_USERNAME = `${USER_SELECT}, u.\`passwordHash\`${USER_JOIN} WHERE u.\`username\` = ?`;

export interface ListFilters {
  status?: string;
  type?: string;
  unreadOnly?: boolean;
}

/** NotificationsService.count and the first (ids) step of its deferred join. */
export function listSql(
  userId: string,
  filters: ListFilters,
  after?: { createdAt: string | Date; id: string },
): { countSql: string; idsSql: string; params: (string | Date)[]; idsParams: (string | Date)[] } {
  let countSql = 'SELECT COALESCE(SUM(c.`total`), 0) AS total FROM `notification_counts` c WHERE c.`userId` = ?';
  let idsSql = 'SELECT n.`id` AS id FROM `notifications` n WHERE n.`userId` = ?';
  const params: (string | Date)[] = [userId];
  if (filters.status) {
    countSql += ' AND c.`status` = ?';
    idsSql += ' AND n.`status` = ?';
    params.push(filters.status);
  }
  if (filters.type) {
    countSql += ' AND c.`notificationType` = ?';
    idsSql += ' AND n.`notificationType` = ?';
    params.push(filters.type);
  }
  if (filters.unreadOnly) {
    countSql += ' AND c.`isRead` = 0';
    idsSql += ' AND n.`readAt` IS NULL';
  }
  const idsParams = [...params];
  if (after) {
    // Keyset seek after the cursor's (createdAt, id), as the service does for ?cursor=.
    idsSql += ' AND n.`createdAt` <= ? AND (n.`createdAt` < ? OR n.`id` < ?)';
    idsParams.push(after.createdAt, after.createdAt, after.id);
  }
  // The service reads one id more than the page to know whether a next page (nextCursor) exists.
  idsSql += ' ORDER BY n.`createdAt` DESC, n.`id` DESC LIMIT ? OFFSET ?';
  return { countSql, idsSql, params, idsParams };
}

/**
 * The service's page statement: the ids query as a derived table (covering index, LIMIT/OFFSET
 * over index entries) joined back to the rows, in one round trip.
 */
export function pageSql(idsSql: string): string {
  const inner = idsSql.replace('SELECT n.`id` AS id FROM', 'SELECT n.`id` AS id, n.`createdAt` AS createdAt FROM');
  return (
    'SELECT n.`id`, n.`userId`, n.`subject`, n.`message`, n.`notificationType`, n.`status`, n.`readAt`, n.`createdAt` ' +
    `FROM \`notifications\` n JOIN (${inner}) p ON p.id = n.\`id\` ORDER BY p.createdAt DESC, p.id DESC`
  );
}

/** Second step of the earlier two-statement deferred join: the page's rows by primary key. */
export const ROWS_BY_IDS =
  'SELECT n.`id`, n.`userId`, n.`subject`, n.`message`, n.`notificationType`, n.`status`, n.`readAt`, n.`createdAt` ' +
  'FROM `notifications` n WHERE n.`id` IN (?) ORDER BY n.`createdAt` DESC, n.`id` DESC';

/** DocumentsService.findUpdatable (findOneBy id). */
export const DOCUMENT_BY_ID =
  'SELECT d.`id`, d.`projectId`, d.`documentTypeId`, d.`title`, d.`description`, d.`fileName`, d.`fileSize`, ' +
  'd.`mimeType`, d.`currentVersion`, d.`status`, d.`tags`, d.`metadata`, d.`uploadedBy`, d.`rowVersion`, ' +
  'd.`createdAt`, d.`updatedAt` FROM `documents` d WHERE d.`id` = ? LIMIT 1';

/** The conditional UPDATE on the row version (DocumentsService.writeIfUnchanged). */
export function documentUpdateSql(fields: string[]): string {
  const sets = fields.map((field) => `\`${field}\` = ?`);
  return `UPDATE \`documents\` SET ${sets.join(', ')}, \`updatedAt\` = ?, \`rowVersion\` = ? WHERE \`id\` = ? AND \`rowVersion\` = ?`;
}

export const HISTORY_INSERT =
  'INSERT INTO `document_history` (`id`, `documentId`, `changedBy`, `changedAt`, `rowVersion`, `changes`) VALUES (?, ?, ?, ?, ?, ?)';
