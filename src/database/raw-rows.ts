import type { EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { Tx } from './transactions.js';

/**
 * Rows read and written as fixed SQL text, with the driver converting each value as TypeORM's own
 * find and insert would (dates, JSON, booleans, transformers): on hot paths TypeORM's builders cost
 * more than the statements they build (a multi-row insert's time grows with the square of its
 * parameters; bench/README.md, "Attention").
 */

/**
 * A row of `repository`'s table, selected by column names (each behind `prefix` when a join
 * selects two tables), as TypeORM would load it; absent columns stay unset.
 */
export function hydrateRow<T extends ObjectLiteral>(
  repository: Repository<T>,
  row: Record<string, unknown>,
  prefix = '',
): T {
  const entity = repository.create();
  const driver = repository.manager.connection.driver;
  for (const column of repository.metadata.columns) {
    const name = prefix + column.databaseName;
    if (!(name in row)) continue;
    column.setEntityValue(entity, driver.prepareHydratedValue(row[name], column));
  }
  return entity;
}

/**
 * One multi-row INSERT of `rows` (every insertable column) and its parameters; `ignoreDuplicates`
 * skips rows a unique index refuses (INSERT IGNORE on MySQL, INSERT OR IGNORE on SQLite).
 */
export function insertStatement<T extends ObjectLiteral>(
  tx: Tx,
  entity: EntityTarget<T>,
  rows: readonly T[],
  { ignoreDuplicates = false } = {},
): [sql: string, parameters: unknown[]] {
  const metadata = tx.connection.getMetadata(entity);
  const columns = metadata.columns.filter((column) => column.isInsert);
  const driver = tx.connection.driver;
  const verb = !ignoreDuplicates
    ? 'INSERT'
    : tx.connection.options.type === 'better-sqlite3'
      ? 'INSERT OR IGNORE'
      : 'INSERT IGNORE';
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const sql =
    `${verb} INTO ${driver.escape(metadata.tableName)} (${columns.map((column) => driver.escape(column.databaseName)).join(', ')}) ` +
    `VALUES ${rows.map(() => tuple).join(', ')}`;
  const parameters = rows.flatMap((row) =>
    columns.map((column) => driver.preparePersistentValue(column.getEntityValue(row), column) as unknown),
  );
  return [sql, parameters];
}
