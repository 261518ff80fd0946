import { QueryFailedError } from 'typeorm';

/** The driver's error code (mysql2 or better-sqlite3), through TypeORM's QueryFailedError if wrapped. */
export function driverCode(error: unknown): string | undefined {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  const code = (driverError as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A unique index refused the row (MySQL/MariaDB or SQLite). */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

// Deadlock victim or Galera certification conflict (both 1213), a lock wait given up, SQLite's busy
// writer or stale snapshot: the transaction was rolled back whole and may simply run again.
const RETRYABLE_CODES = new Set([
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_LOCKED',
]);

/** The database rolled the whole transaction back for a conflict: running it again is safe. */
export function isRetryableConflict(error: unknown): boolean {
  const code = driverCode(error);
  return code !== undefined && RETRYABLE_CODES.has(code);
}

/** Another connection holds SQLite's write lock, or this one's snapshot is stale. */
export function isBusySqlite(error: unknown): boolean {
  return driverCode(error)?.startsWith('SQLITE_BUSY') ?? false;
}
