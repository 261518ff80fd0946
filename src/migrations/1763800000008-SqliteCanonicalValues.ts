import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * SQLite compares TEXT byte by byte, so keyset pagination and ORDER BY are only right when every
 * row stores a value in one form. These are the forms TypeORM writes (DateUtils, better-sqlite3):
 *  - timestamps: UTC 'YYYY-MM-DD HH:MM:SS.SSS' (not '…T…Z', not datetime('now')'s 'YYYY-MM-DD HH:MM:SS');
 *  - ids and references to them: lower-case UUIDs, 36 characters.
 * BEFORE INSERT / BEFORE UPDATE OF triggers refuse anything else from any writer. (TypeORM does
 * not read triggers, so the entities still describe the tables exactly; CHECK constraints would
 * have to be repeated in every entity and cost a rebuild of each table.)
 *
 * notifications also refuses an INSERT whose id already exists: SQLite's REPLACE (INSERT OR
 * REPLACE, REPLACE INTO, upserts' conflict paths) deletes the old row without firing delete triggers
 * unless the writer turned recursive_triggers on, which would leave notification_counts too high.
 * BEFORE triggers run before conflict resolution, so they see the existing row. Update or delete
 * existing notifications instead.
 *
 * Rows already stored in another form are rewritten first (timestamps through strftime, ids
 * lower-cased); anything that cannot be stops the migration with the table and column named.
 * MySQL needs none of this: DATETIME has one form and the ids' utf8mb4_unicode_ci collation
 * compares case-insensitively in WHERE and ORDER BY alike.
 */
const TABLES: { table: string; ids: string[]; timestamps: string[]; nullableTimestamps?: string[] }[] = [
  { table: 'roles', ids: ['id'], timestamps: [] },
  { table: 'users', ids: ['id'], timestamps: ['createdAt'] },
  { table: 'user_roles', ids: ['userId', 'roleId'], timestamps: [] },
  { table: 'projects', ids: ['id'], timestamps: ['createdAt'] },
  { table: 'document_types', ids: ['id'], timestamps: ['createdAt'] },
  {
    table: 'documents',
    ids: ['id', 'projectId', 'documentTypeId', 'uploadedBy'],
    timestamps: ['createdAt', 'updatedAt'],
  },
  { table: 'document_history', ids: ['id', 'documentId', 'changedBy'], timestamps: ['changedAt'] },
  { table: 'notifications', ids: ['id', 'userId'], timestamps: ['createdAt'], nullableTimestamps: ['readAt'] },
];

const UUID_GLOB = [8, 4, 4, 4, 12].map((length) => '[0-9a-f]'.repeat(length)).join('-');
const TIMESTAMP_FORMAT = '%Y-%m-%d %H:%M:%f';

/** A condition that is true when `value` (e.g. NEW.id) is not in canonical form. */
const badId = (value: string) => `(typeof(${value}) <> 'text' OR ${value} NOT GLOB '${UUID_GLOB}')`;
const badTimestamp = (value: string) =>
  `(typeof(${value}) <> 'text' OR strftime('${TIMESTAMP_FORMAT}', ${value}) IS NOT ${value})`;
const badNullableTimestamp = (value: string) => `(${value} IS NOT NULL AND ${badTimestamp(value)})`;

export class SqliteCanonicalValues1763800000008 implements MigrationInterface {
  name = 'SqliteCanonicalValues1763800000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) return;

    for (const { table, ids, timestamps, nullableTimestamps = [] } of TABLES) {
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

    const replaced =
      'notifications: a notification with this id already exists; update or delete it instead ' +
      '(SQLite REPLACE and upserts would bypass the count triggers)';
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_unique_insert BEFORE INSERT ON notifications FOR EACH ROW
       WHEN EXISTS (SELECT 1 FROM notifications WHERE id = NEW.id) BEGIN SELECT RAISE(ABORT, '${replaced}'); END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER trg_notifications_unique_update BEFORE UPDATE OF id ON notifications FOR EACH ROW
       WHEN NEW.id IS NOT OLD.id AND EXISTS (SELECT 1 FROM notifications WHERE id = NEW.id)
       BEGIN SELECT RAISE(ABORT, '${replaced}'); END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) return;
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_unique_update');
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_notifications_unique_insert');
    for (const { table } of TABLES.toReversed()) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS "trg_${table}_canonical_update"`);
      await queryRunner.query(`DROP TRIGGER IF EXISTS "trg_${table}_canonical_insert"`);
    }
  }
}
