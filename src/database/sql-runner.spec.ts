import { DataSource, type DataSourceOptions } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createTestDatabase,
  databasesUnderTest,
  type DatabaseKind,
  type TestDatabase,
} from '../../test/support/databases.js';
import { parseDatabaseUrl } from '../config/database-url.js';
import { buildDataSourceOptions, MYSQL_PREPARED_PER_CONNECTION } from './data-source-options.js';
import { afterOneRow, PREPARED, SqlRunner, isUniqueViolation } from './sql-runner.js';

/** A DataSource on a fresh database of the given kind; MySQL gets a one-connection pool. */
function openDataSource(kind: DatabaseKind, database?: TestDatabase): Promise<DataSource> {
  const dataSource =
    kind === 'sqlite'
      ? new DataSource({ type: 'better-sqlite3', database: ':memory:' })
      : new DataSource({ type: 'mysql', url: database!.url, poolSize: 1, timezone: 'Z', multipleStatements: true });
  return dataSource.initialize();
}

interface Fixture {
  database?: TestDatabase;
  dataSource: DataSource;
  sql: SqlRunner;
}

/** Table t with rows (1, 'one'), (2, 'two'), (3, NULL), reset before every test. */
function useTable(kind: DatabaseKind): Fixture {
  const fixture = {} as Fixture;
  beforeAll(async () => {
    if (kind === 'mysql') fixture.database = await createTestDatabase('mysql');
    fixture.dataSource = await openDataSource(kind, fixture.database);
    await fixture.dataSource.query(
      'CREATE TABLE t (id integer PRIMARY KEY, flag integer NOT NULL, name varchar(32) UNIQUE)',
    );
    fixture.sql = new SqlRunner(fixture.dataSource);
  });
  beforeEach(async () => {
    await fixture.dataSource.query('DELETE FROM t');
    await fixture.dataSource.query(`INSERT INTO t (id, flag, name) VALUES (1, 1, 'one'), (2, 0, 'two'), (3, 1, NULL)`);
  });
  afterAll(async () => {
    await fixture.dataSource?.destroy();
    await fixture.database?.drop();
  });
  return fixture;
}

const names = async ({ dataSource }: Fixture) =>
  (await dataSource.query<{ name: string }[]>('SELECT name FROM t WHERE id IN (1, 2) ORDER BY id')).map(
    (row) => row.name,
  );
const rename = (id: number, name: string, expected: string): [string, unknown[]] => [
  'UPDATE t SET name = ? WHERE id = ? AND name = ?',
  [name, id, expected],
];
const insert = (id: number, name: string): [string, unknown[]] => [
  'INSERT INTO t (id, flag, name) VALUES (?, ?, ?)',
  [id, 0, name],
];
const allIds = async ({ dataSource }: Fixture) =>
  // MySQL may answer the integer as a number or a string depending on the driver's settings.
  (await dataSource.query<{ id: number | string }[]>('SELECT id FROM t ORDER BY id')).map((row) => Number(row.id));
const DUPLICATE = { sqlite: 'SQLITE_CONSTRAINT_UNIQUE', mysql: 'ER_DUP_ENTRY' } as const;
const BAD_FIELD = { sqlite: 'SQLITE_ERROR', mysql: 'ER_BAD_FIELD_ERROR' } as const;

describe.each(databasesUnderTest())('SqlRunner on %s', (kind) => {
  const fixture = useTable(kind);

  it('returns the rows TypeORM would return for the same SELECT', async () => {
    const query = 'SELECT id, flag, name FROM t WHERE id >= ? ORDER BY id';
    await expect(fixture.sql.select(query, [2])).resolves.toEqual(await fixture.dataSource.query(query, [2]));
  });

  it('answers rows as arrays in select-list order, and the same SELECT still as objects', async () => {
    // The select list is not in the table's column order: the values must follow the list.
    const query = 'SELECT name, id, flag FROM t WHERE id >= ? ORDER BY id';
    await expect(fixture.sql.selectTuples(query, [2])).resolves.toEqual([
      ['two', 2, 0],
      [null, 3, 1],
    ]);
    // SQLite keeps one prepared statement per mode: the raw one must not answer object selects.
    await expect(fixture.sql.select(query, [2])).resolves.toEqual(await fixture.dataSource.query(query, [2]));
    await expect(fixture.sql.selectTuples(query, [3])).resolves.toEqual([[null, 3, 1]]);
    await expect(fixture.sql.selectTuples(query, [3], PREPARED)).resolves.toEqual([[null, 3, 1]]);
  });

  it('binds an undefined value as NULL', async () => {
    const nameless = 'SELECT id FROM t WHERE name IS NULL AND ? IS NULL';
    await expect(fixture.sql.select(nameless, [undefined])).resolves.toEqual([{ id: 3 }]);
    await expect(fixture.sql.select(nameless, [undefined], PREPARED)).resolves.toEqual([{ id: 3 }]);
    await expect(fixture.sql.selectTuples(nameless, [undefined], PREPARED)).resolves.toEqual([[3]]);
    await expect(fixture.sql.transaction((tx) => tx.select(nameless, [undefined]))).resolves.toEqual([{ id: 3 }]);
  });

  it('binds booleans as 0/1, as TypeORM stores them', async () => {
    const ids = async (flag: boolean) =>
      (await fixture.sql.select<{ id: number }>('SELECT id FROM t WHERE flag = ? ORDER BY id', [flag])).map(
        (row) => row.id,
      );
    await expect(ids(true)).resolves.toEqual([1, 3]);
    await expect(ids(false)).resolves.toEqual([2]);
  });

  it('rejects with the driver error (its code is what the error mapping reads)', async () => {
    await expect(fixture.sql.select('SELECT nope FROM t', [])).rejects.toMatchObject({ code: BAD_FIELD[kind] });
  });

  describe('transaction', () => {
    it('commits what the work wrote and answers its result', async () => {
      const changed = await fixture.sql.transaction(async (tx) => {
        const [row] = await tx.select<{ name: string }>('SELECT name FROM t WHERE id = ?', [1]);
        return tx.execute(...rename(1, `${row.name}!`, row.name));
      });
      expect(changed).toBe(1);
      await expect(names(fixture)).resolves.toEqual(['one!', 'two']);
    });

    it('rolls back when the work throws, and gives the connection back (the MySQL pool has one)', async () => {
      const failure = new Error('work failed');
      for (let attempt = 0; attempt < 3; attempt++) {
        await expect(
          fixture.sql.transaction(async (tx) => {
            await tx.execute(...rename(1, 'uno', 'one'));
            throw failure;
          }),
        ).rejects.toBe(failure);
      }
      await expect(names(fixture)).resolves.toEqual(['one', 'two']);
      await expect(fixture.sql.select('SELECT 1 AS ok', [])).resolves.toEqual([{ ok: 1 }]);
    });

    it('a unique violation inside it is recognisable and rolls back', async () => {
      const error = await fixture.sql
        .transaction(async (tx) => {
          await tx.execute(...rename(1, 'uno', 'one'));
          await tx.execute(...rename(2, 'uno', 'two'));
        })
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
      await expect(names(fixture)).resolves.toEqual(['one', 'two']);
    });
  });

  describe('writeIfChanged', () => {
    it('runs the inserts only when the first statement changed one row', async () => {
      const { sql } = fixture;
      await expect(sql.writeIfChanged(rename(1, 'uno', 'one'), insert(4, 'four'), insert(5, 'five'))).resolves.toBe(
        true,
      );
      await expect(names(fixture)).resolves.toEqual(['uno', 'two']);
      await expect(allIds(fixture)).resolves.toEqual([1, 2, 3, 4, 5]);
      await expect(sql.writeIfChanged(rename(1, 'eins', 'one'), insert(6, 'six'), insert(7, 'seven'))).resolves.toBe(
        false,
      );
      await expect(names(fixture)).resolves.toEqual(['uno', 'two']);
      await expect(allIds(fixture)).resolves.toEqual([1, 2, 3, 4, 5]);
    });

    it('rolls everything back when an insert fails, and the connection serves on', async () => {
      await expect(
        fixture.sql.writeIfChanged(rename(1, 'uno', 'one'), insert(4, 'four'), insert(5, 'two')),
      ).rejects.toMatchObject({ code: DUPLICATE[kind] });
      await expect(names(fixture)).resolves.toEqual(['one', 'two']);
      await expect(allIds(fixture)).resolves.toEqual([1, 2, 3]);
      await expect(fixture.sql.writeIfChanged(rename(2, 'dos', 'two'), insert(4, 'four'))).resolves.toBe(true);
      await expect(allIds(fixture)).resolves.toEqual([1, 2, 3, 4]);
    });

    it('rolls the write back when it fails itself', async () => {
      await expect(fixture.sql.writeIfChanged(['UPDATE t SET nope = 1', []], insert(4, 'four'))).rejects.toMatchObject({
        code: BAD_FIELD[kind],
      });
      await expect(allIds(fixture)).resolves.toEqual([1, 2, 3]);
    });
  });
});

describe('afterOneRow', () => {
  it('makes a single-row INSERT conditional on the previous statement', () => {
    expect(afterOneRow('INSERT INTO t (id, flag, name) VALUES (?, ?, ?)')).toBe(
      'INSERT INTO t (id, flag, name) SELECT ?, ?, ? FROM DUAL WHERE ROW_COUNT() = 1',
    );
  });

  it('refuses anything else', () => {
    expect(() => afterOneRow('UPDATE t SET name = ?')).toThrow(/single-row INSERT/);
    expect(() => afterOneRow('INSERT INTO t (id) VALUES (?), (?)')).toThrow(/single-row INSERT/);
    expect(() => afterOneRow("INSERT INTO t (id) VALUES ('x')")).toThrow(/single-row INSERT/);
  });
});

describe('SqlRunner on sqlite (its own statement cache and transactions)', () => {
  const fixture = useTable('sqlite');

  it('prepares each statement once', async () => {
    const connection = (
      fixture.dataSource.driver as unknown as { databaseConnection: { prepare: (s: string) => unknown } }
    ).databaseConnection;
    const prepare = vi.spyOn(connection, 'prepare');
    for (let i = 0; i < 5; i++) await fixture.sql.select('SELECT name FROM t WHERE id = ?', [1]);
    expect(prepare).toHaveBeenCalledTimes(1);
    prepare.mockRestore();
  });

  it('queues concurrent transactions: a rollback undoes only its own', async () => {
    const failed = new Error('rolled back');
    const first = fixture.sql.transaction(async (tx) => {
      await tx.execute(...rename(1, 'uno', 'one'));
      // Let the second transaction start now if it were not queued.
      await new Promise((resolve) => setImmediate(resolve));
      throw failed;
    });
    const second = fixture.sql.transaction((tx) => tx.execute(...rename(2, 'dos', 'two')));
    await expect(first).rejects.toBe(failed);
    await expect(second).resolves.toBe(1);
    await expect(names(fixture)).resolves.toEqual(['one', 'dos']);
  });

  it('queues a transaction started by a timer set inside another: no transaction context leaks into timers', async () => {
    const order: string[] = [];
    let timerFired!: () => void;
    const fired = new Promise<void>((resolve) => (timerFired = resolve));
    let later: Promise<number> | undefined;
    await fixture.sql.transaction(async (tx) => {
      await tx.execute(...rename(1, 'uno', 'one'));
      // What a poller nudged from inside a transaction does.
      setTimeout(() => {
        later = fixture.sql.transaction(async (inner) => {
          order.push('timer');
          return inner.execute(...rename(2, 'dos', 'two'));
        });
        timerFired();
      }, 0);
      await fired;
      await new Promise((resolve) => setImmediate(resolve));
      order.push('first');
    });
    await expect(later).resolves.toBe(1);
    expect(order).toEqual(['first', 'timer']);
    await expect(names(fixture)).resolves.toEqual(['uno', 'dos']);
  });

  it('writeIfChanged joins an open TypeORM transaction instead of nesting its own', async () => {
    const runner = fixture.dataSource.createQueryRunner();
    await runner.startTransaction();
    await expect(fixture.sql.writeIfChanged(rename(1, 'uno', 'one'), insert(4, 'four'))).resolves.toBe(true);
    await runner.rollbackTransaction();
    await runner.release();
    await expect(names(fixture)).resolves.toEqual(['one', 'two']);
  });
});

// The hand-written MySQL transaction's failure branch, against a real MariaDB.
describe.each(databasesUnderTest().filter((kind) => kind === 'mysql'))('SqlRunner on %s, connection lost', (kind) => {
  const fixture = useTable(kind);

  it('mid-transaction: the work error surfaces, nothing is committed, the pool recovers', async () => {
    const lost = new Error('the connection was lost');
    const killer = await openDataSource(kind, fixture.database);
    try {
      await expect(
        fixture.sql.transaction(async (tx) => {
          await tx.execute(...rename(1, 'uno', 'one'));
          const [{ id }] = await tx.select<{ id: number }>('SELECT CONNECTION_ID() AS id', []);
          await killer.query(`KILL CONNECTION ${id}`);
          // This statement fails, then so does ROLLBACK: the runner must destroy the connection
          // and still reject with this error, not ROLLBACK's.
          await tx.select('SELECT 1', []).catch(() => Promise.reject(lost));
        }),
      ).rejects.toBe(lost);
    } finally {
      await killer.destroy();
    }
    // The pool holds one connection: a dead one handed out again would fail these.
    await expect(names(fixture)).resolves.toEqual(['one', 'two']);
    await expect(fixture.sql.select('SELECT 1 AS ok', [])).resolves.toEqual([{ ok: 1 }]);
    await expect(fixture.sql.writeIfChanged(rename(1, 'uno', 'one'), insert(4, 'four'))).resolves.toBe(true);
  });
});

// Reads that ask for it run as server-side prepared statements, kept per connection up to the
// configured bound (the real connection options); everything else as text.
describe.each(databasesUnderTest().filter((kind) => kind === 'mysql'))('SqlRunner on %s, prepared statements', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let sql: SqlRunner;
  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    const options = buildDataSourceOptions({ connection: parseDatabaseUrl(database.url), timeoutMs: 5000 });
    // The service's options (prepared statements per connection included), on one connection.
    dataSource = await new DataSource({ ...options, poolSize: 1 } as DataSourceOptions).initialize();
    sql = new SqlRunner(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** The connection's statement counters, read as text (one connection: every call here shares it). */
  const counters = async () => {
    const rows = await dataSource.query<{ Variable_name: string; Value: string }[]>(
      "SHOW SESSION STATUS LIKE 'Com_stmt_%'",
    );
    return Object.fromEntries(rows.map((row) => [row.Variable_name, Number(row.Value)]));
  };

  it('prepares a statement once per connection and executes it each time', async () => {
    const before = await counters();
    for (let i = 0; i < 3; i++)
      await expect(sql.select('SELECT ? + 1 AS next', [i], PREPARED)).resolves.toEqual([{ next: i + 1 }]);
    await expect(sql.selectTuples('SELECT ? + 1 AS next', [5], PREPARED)).resolves.toEqual([[6]]);
    const after = await counters();
    expect(after.Com_stmt_prepare - before.Com_stmt_prepare).toBe(1);
    expect(after.Com_stmt_execute - before.Com_stmt_execute).toBe(4);
  });

  it('runs a read as text unless it asks to be prepared, and a transaction as text', async () => {
    const before = await counters();
    await expect(sql.select('SELECT ? + 2 AS next', [1])).resolves.toEqual([{ next: 3 }]);
    await expect(sql.selectTuples('SELECT ? + 2 AS next', [2])).resolves.toEqual([[4]]);
    await expect(sql.transaction((tx) => tx.select('SELECT ? + 2 AS next', [3]))).resolves.toEqual([{ next: 5 }]);
    const after = await counters();
    expect(after.Com_stmt_prepare - before.Com_stmt_prepare).toBe(0);
    expect(after.Com_stmt_execute - before.Com_stmt_execute).toBe(0);
  });

  it(`keeps at most ${MYSQL_PREPARED_PER_CONNECTION} per connection, closing the least recently used`, async () => {
    const before = await counters();
    const distinct = MYSQL_PREPARED_PER_CONNECTION + 5;
    for (let i = 0; i < distinct; i++) await sql.select(`SELECT ${i} AS n FROM DUAL WHERE ? = 1`, [1], PREPARED);
    const after = await counters();
    const open = (c: Record<string, number>) => c.Com_stmt_prepare - c.Com_stmt_close;
    expect(after.Com_stmt_prepare - before.Com_stmt_prepare).toBe(distinct);
    expect(after.Com_stmt_close - before.Com_stmt_close).toBeGreaterThanOrEqual(5);
    // Since the connection opened (the first test's statement included).
    expect(open(after)).toBe(MYSQL_PREPARED_PER_CONNECTION);
  });
});
