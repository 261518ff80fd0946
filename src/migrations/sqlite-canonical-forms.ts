import type { QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * SQLite only: the stored forms every row must keep (see migration 1763800000008 for why), as
 * BEFORE INSERT / BEFORE UPDATE OF triggers named trg_<table>_canonical_insert/_update. Migrations
 * that create a table call this for it; existing rows in another form are rewritten first, and
 * rows that cannot be stop the migration naming the table and column. Do not change what it
 * creates for existing callers: add options instead (migrations that ran must stay reproducible).
 */
export interface CanonicalColumns {
  table: string;
  ids: string[];
  timestamps: string[];
  nullableTimestamps?: string[];
}

const UUID_GLOB = [8, 4, 4, 4, 12].map((length) => '[0-9a-f]'.repeat(length)).join('-');
const TIMESTAMP_FORMAT = '%Y-%m-%d %H:%M:%f';

/** A condition that is true when `value` (e.g. NEW.id) is not in canonical form. */
const badId = (value: string) => `(typeof(${value}) <> 'text' OR ${value} NOT GLOB '${UUID_GLOB}')`;
const badTimestamp = (value: string) =>
  `(typeof(${value}) <> 'text' OR strftime('${TIMESTAMP_FORMAT}', ${value}) IS NOT ${value})`;
const badNullableTimestamp = (value: string) => `(${value} IS NOT NULL AND ${badTimestamp(value)})`;

export async function createCanonicalFormTriggers(
  queryRunner: QueryRunner,
  { table, ids, timestamps, nullableTimestamps = [] }: CanonicalColumns,
): Promise<void> {
  if (isMysql(queryRunner)) return;
  for (const column of ids) {
    await queryRunner.query(
      `UPDATE "${table}" SET "${column}" = lower("${column}") WHERE "${column}" <> lower("${column}")`,
    );
  }
  for (const column of [...timestamps, ...nullableTimestamps]) {
    await queryRunner.query(
      `UPDATE "${table}" SET "${column}" = strftime('${TIMESTAMP_FORMAT}', "${column}")
           WHERE "${column}" IS NOT strftime('${TIMESTAMP_FORMAT}', "${column}")
             AND strftime('${TIMESTAMP_FORMAT}', "${column}") IS NOT NULL`,
    );
  }
  const checks = [
    ...ids.map((column) => ({ column, bad: badId(`"${column}"`) })),
    ...timestamps.map((column) => ({ column, bad: badTimestamp(`"${column}"`) })),
    ...nullableTimestamps.map((column) => ({ column, bad: badNullableTimestamp(`"${column}"`) })),
  ];
  for (const { column, bad } of checks) {
    const [{ n }] = (await queryRunner.query(`SELECT COUNT(*) AS n FROM "${table}" WHERE ${bad}`)) as {
      n: number;
    }[];
    if (n > 0) {
      throw new Error(
        `SqliteCanonicalValues: ${n} row(s) of ${table}.${column} hold a value that is not ` +
          `${ids.includes(column) ? 'a UUID' : "a timestamp 'YYYY-MM-DD HH:MM:SS.SSS'"}; fix them and run the migrations again.`,
      );
    }
  }

  const columns = [...ids, ...timestamps, ...nullableTimestamps];
  const refused = [
    ...ids.map((column) => badId(`NEW."${column}"`)),
    ...timestamps.map((column) => badTimestamp(`NEW."${column}"`)),
    ...nullableTimestamps.map((column) => badNullableTimestamp(`NEW."${column}"`)),
  ].join(' OR ');
  const message =
    `${table}: ${ids.join(', ')} must be lower-case UUIDs` +
    (timestamps.length + nullableTimestamps.length
      ? ` and ${[...timestamps, ...nullableTimestamps].join(', ')} UTC timestamps YYYY-MM-DD HH:MM:SS.SSS`
      : '');
  await queryRunner.query(
    `CREATE TRIGGER "trg_${table}_canonical_insert" BEFORE INSERT ON "${table}" FOR EACH ROW
         WHEN ${refused} BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER "trg_${table}_canonical_update" BEFORE UPDATE OF ${columns.map((c) => `"${c}"`).join(', ')}
         ON "${table}" FOR EACH ROW WHEN ${refused} BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  );
}

export async function dropCanonicalFormTriggers(queryRunner: QueryRunner, table: string): Promise<void> {
  if (isMysql(queryRunner)) return;
  await queryRunner.query(`DROP TRIGGER IF EXISTS "trg_${table}_canonical_update"`);
  await queryRunner.query(`DROP TRIGGER IF EXISTS "trg_${table}_canonical_insert"`);
}
