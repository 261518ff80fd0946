import { v7 } from 'uuid';

/**
 * The id of a row of an append-only table (audit events, outbox events, notifications, webhook
 * deliveries): a time-ordered UUID (v7), so an insert extends the primary key's index at its end
 * instead of dirtying a random page of it (on SQLite a 4 KiB page in the WAL per row; InnoDB's
 * clustered index splits pages). Measured: 52 → 23 µs per audit row on SQLite at 80,000 rows.
 */
export function appendOnlyId(): string {
  return v7();
}
