import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Exact per-user notification totals, one row per (status, type, read) combination and
 * kept by database triggers (see the NotificationCounts migration), so a list total is a
 * sum over at most 32 rows instead of a COUNT over all of a user's notifications.
 */
@Entity({ name: 'notification_counts' })
export class NotificationCount {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  status: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  notificationType: string;

  @PrimaryColumn({ type: 'boolean' })
  isRead: boolean;

  /** BIGINT: mysql2 returns it as a string. */
  @Column({
    type: 'bigint',
    transformer: { to: (value: number) => value, from: (value: string | number) => Number(value) },
  })
  total: number;
}
