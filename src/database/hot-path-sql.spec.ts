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
});
