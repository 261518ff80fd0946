import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HotPathSql } from './hot-path-sql.js';

describe('HotPathSql on better-sqlite3', () => {
  let dataSource: DataSource;
  let sql: HotPathSql;

  beforeAll(async () => {
    dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE t (id integer PRIMARY KEY, flag integer NOT NULL, name text)');
    await dataSource.query(`INSERT INTO t (id, flag, name) VALUES (1, 1, 'one'), (2, 0, 'two'), (3, 1, NULL)`);
    sql = new HotPathSql(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('returns the rows TypeORM would return for the same SELECT', async () => {
    const query = 'SELECT id, flag, name FROM t WHERE id >= ? ORDER BY id';
    await expect(sql.select(query, [2])).resolves.toEqual(await dataSource.query(query, [2]));
  });

  it('binds booleans as 0/1, as TypeORM stores them', async () => {
    await expect(sql.select('SELECT id FROM t WHERE flag = ? ORDER BY id', [true])).resolves.toEqual([
      { id: 1 },
      { id: 3 },
    ]);
    await expect(sql.select('SELECT id FROM t WHERE flag = ? ORDER BY id', [false])).resolves.toEqual([{ id: 2 }]);
  });

  it('prepares each statement once', async () => {
    const connection = (dataSource.driver as unknown as { databaseConnection: { prepare: (s: string) => unknown } })
      .databaseConnection;
    const prepare = vi.spyOn(connection, 'prepare');
    for (let i = 0; i < 5; i++) await sql.select('SELECT name FROM t WHERE id = ?', [1]);
    expect(prepare).toHaveBeenCalledTimes(1);
    prepare.mockRestore();
  });

  it('rejects with the driver error (its code is what the error mapping reads)', async () => {
    await expect(sql.select('SELECT nope FROM t', [])).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
  });

  describe('writeIfChanged', () => {
    const names = async () =>
      dataSource.query<{ name: string }[]>('SELECT id, name FROM t WHERE id IN (1, 2) ORDER BY id');
    const rename = (id: number, name: string, expected: string | null): [string, unknown[]] => [
      'UPDATE t SET name = ? WHERE id = ? AND name IS ?',
      [name, id, expected],
    ];

    it('runs the second statement only when the first changed one row', async () => {
      await expect(sql.writeIfChanged(rename(1, 'uno', 'one'), rename(2, 'dos', 'two'))).resolves.toBe(true);
      expect((await names()).map((row) => row.name)).toEqual(['uno', 'dos']);
      await expect(sql.writeIfChanged(rename(1, 'eins', 'one'), rename(2, 'zwei', 'dos'))).resolves.toBe(false);
      expect((await names()).map((row) => row.name)).toEqual(['uno', 'dos']);
    });

    it('rolls the first statement back when the second fails', async () => {
      await expect(sql.writeIfChanged(rename(1, 'one', 'uno'), ['UPDATE t SET nope = 1', []])).rejects.toMatchObject({
        code: 'SQLITE_ERROR',
      });
      expect((await names()).map((row) => row.name)).toEqual(['uno', 'dos']);
    });

    it('joins an open TypeORM transaction instead of nesting its own', async () => {
      const runner = dataSource.createQueryRunner();
      await runner.startTransaction();
      await expect(sql.writeIfChanged(rename(1, 'one', 'uno'), rename(2, 'two', 'dos'))).resolves.toBe(true);
      await runner.rollbackTransaction();
      await runner.release();
      expect((await names()).map((row) => row.name)).toEqual(['uno', 'dos']);
    });
  });
});
