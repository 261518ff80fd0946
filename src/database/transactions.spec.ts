import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { SQLITE_BUSY_ATTEMPTS, TRANSACTION_ATTEMPTS, Transactions, type Tx } from './transactions.js';

/** A DataSource whose transaction() runs the work with a stand-in manager. */
function dataSource(type: string): DataSource {
  return {
    options: { type },
    transaction: (...args: unknown[]) => (args.at(-1) as (manager: unknown) => Promise<unknown>)({}),
  } as unknown as DataSource;
}

const failing = (code: string, times: number) => {
  let calls = 0;
  const work = () => {
    calls++;
    return calls <= times ? Promise.reject(Object.assign(new Error(code), { code })) : Promise.resolve(calls);
  };
  return { work, calls: () => calls };
};

describe('Transactions', () => {
  it('runs the whole work again after a deadlock, up to its bound', async () => {
    const retried = failing('ER_LOCK_DEADLOCK', TRANSACTION_ATTEMPTS - 1);
    await expect(new Transactions(dataSource('mysql')).run(retried.work)).resolves.toBe(TRANSACTION_ATTEMPTS);
    const exhausted = failing('ER_LOCK_DEADLOCK', TRANSACTION_ATTEMPTS);
    await expect(new Transactions(dataSource('mysql')).run(exhausted.work)).rejects.toMatchObject({
      code: 'ER_LOCK_DEADLOCK',
    });
    expect(exhausted.calls()).toBe(TRANSACTION_ATTEMPTS);
  });

  it('never retries an error that is not a conflict', async () => {
    const broken = failing('ER_DUP_ENTRY', 1);
    await expect(new Transactions(dataSource('mysql')).run(broken.work)).rejects.toMatchObject({
      code: 'ER_DUP_ENTRY',
    });
    expect(broken.calls()).toBe(1);
  });

  it('waits out a busy SQLite for longer than a deadlock', async () => {
    const busy = failing('SQLITE_BUSY', TRANSACTION_ATTEMPTS + 2);
    await expect(new Transactions(dataSource('better-sqlite3')).run(busy.work)).resolves.toBe(TRANSACTION_ATTEMPTS + 3);
    expect(SQLITE_BUSY_ATTEMPTS).toBeGreaterThan(TRANSACTION_ATTEMPTS);
  });

  it('runs SQLite transactions one at a time', async () => {
    const transactions = new Transactions(dataSource('better-sqlite3'));
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = transactions.run(async () => {
      order.push('first begins');
      await held;
      order.push('first ends');
    });
    const second = transactions.run(async () => {
      order.push('second begins');
    });
    await Promise.resolve();
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first begins', 'first ends', 'second begins']);
  });

  it('runs the work registered with beforeCommit once per key, after the work, before the commit', async () => {
    const transactions = new Transactions(dataSource('mysql'));
    const order: string[] = [];
    const key = {};
    let open: Tx | undefined;
    await transactions.run(async (tx) => {
      open = tx;
      expect(transactions.beforeCommit(tx, key, async () => void order.push('first hook'))).toBe(true);
      expect(transactions.beforeCommit(tx, key, async () => void order.push('same key again'))).toBe(true);
      transactions.beforeCommit(tx, {}, async () => void order.push('second hook'));
      order.push('work');
    });
    expect(order).toEqual(['work', 'first hook', 'second hook']);
    // A transaction that ended, or one this instance did not open: the caller does its work itself.
    expect(transactions.beforeCommit(open!, key, async () => undefined)).toBe(false);
    expect(transactions.beforeCommit({} as Tx, key, async () => undefined)).toBe(false);
  });

  it('calls what afterCommit registered once per key after the commit, never after a rollback', async () => {
    const transactions = new Transactions(dataSource('mysql'));
    const order: string[] = [];
    const key = {};
    await transactions.run(async (tx) => {
      expect(transactions.afterCommit(tx, key, () => order.push('after'))).toBe(true);
      transactions.afterCommit(tx, key, () => order.push('same key again'));
      order.push('work');
    });
    expect(order).toEqual(['work', 'after']);
    const failed = transactions.run(async (tx) => {
      transactions.afterCommit(tx, key, () => order.push('after a rollback'));
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(order).toEqual(['work', 'after']);
    expect(transactions.afterCommit({} as Tx, key, () => undefined)).toBe(false);
  });
});
