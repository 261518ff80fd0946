import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, type EntityManager } from 'typeorm';
import { isBusySqlite, isRetryableConflict } from './database-errors.js';

/** The handle every repository write takes: TypeORM's EntityManager of the open transaction. */
export type Tx = EntityManager;

export interface TransactionOptions {
  /** MySQL/MariaDB only: locking reads lock the rows they find and no gaps (SQLite has one writer anyway). */
  readCommitted?: boolean;
}

/** Work that must be the last thing a transaction does before it commits (see Transactions.beforeCommit). */
export type BeforeCommit = (tx: Tx) => Promise<void>;

/** What a transaction of this instance does around its commit. */
interface CommitHooks {
  before: Map<object, BeforeCommit>;
  after: Map<object, () => void>;
}

/** Attempts of one transaction before a deadlock or certification conflict reaches the caller (503). */
export const TRANSACTION_ATTEMPTS = 4;
/** Attempts while another process holds SQLite's write lock: about three seconds of short waits. */
export const SQLITE_BUSY_ATTEMPTS = 30;

/**
 * The one transaction API. `run(work)` opens a transaction with TypeORM, hands `work` its
 * EntityManager, commits when `work` resolves and rolls back when it throws. A deadlock, a Galera
 * certification conflict or a busy SQLite runs the whole of `work` again (see docs/decisions/0001).
 * Every write in the service goes through here; `work` passes its manager down and never opens a
 * second transaction. On SQLite, TypeORM shares one connection, so transactions run one at a time.
 */
@Injectable()
export class Transactions {
  private sqliteTail: Promise<unknown> = Promise.resolve();
  /** The open transactions of this instance and what each does around its commit. */
  private readonly open = new WeakMap<Tx, CommitHooks>();

  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(work, options);
      } catch (error) {
        const attempts = isBusySqlite(error) ? SQLITE_BUSY_ATTEMPTS : TRANSACTION_ATTEMPTS;
        if (attempt >= attempts || !isRetryableConflict(error)) throw error;
        await sleep(backoffMs(attempt));
      }
    }
  }

  /**
   * Runs `last` once, after `work` has resolved and right before the commit of `tx` (a
   * transaction of this instance): a lock it takes is held only for its own statements and the
   * commit. Registering again under the same `key` keeps the first. Answers false for a `tx` this
   * instance did not open (the caller then does its work at once).
   */
  beforeCommit(tx: Tx, key: object, last: BeforeCommit): boolean {
    const hooks = this.open.get(tx)?.before;
    if (!hooks) return false;
    if (!hooks.has(key)) hooks.set(key, last);
    return true;
  }

  /**
   * Calls `then` once `tx` (a transaction of this instance) has committed, never if it rolls back;
   * registering again under the same `key` keeps the first. Answers false for a `tx` this instance
   * did not open (the caller then decides without knowing the outcome).
   */
  afterCommit(tx: Tx, key: object, then: () => void): boolean {
    const hooks = this.open.get(tx)?.after;
    if (!hooks) return false;
    if (!hooks.has(key)) hooks.set(key, then);
    return true;
  }

  private async once<T>(work: (tx: Tx) => Promise<T>, options: TransactionOptions): Promise<T> {
    const after = new Map<object, () => void>();
    const inTransaction = async (tx: Tx): Promise<T> => {
      const hooks: CommitHooks = { before: new Map(), after };
      this.open.set(tx, hooks);
      try {
        const result = await work(tx);
        for (const last of hooks.before.values()) await last(tx);
        return result;
      } finally {
        this.open.delete(tx);
      }
    };
    const result = await this.begin(inTransaction, options);
    for (const then of after.values()) then();
    return result;
  }

  private begin<T>(inTransaction: (tx: Tx) => Promise<T>, options: TransactionOptions): Promise<T> {
    if (this.dataSource.options.type !== 'better-sqlite3') {
      return options.readCommitted
        ? this.dataSource.transaction('READ COMMITTED', inTransaction)
        : this.dataSource.transaction(inTransaction);
    }
    // TypeORM would nest a concurrent transaction on the one SQLite connection as a savepoint.
    // BEGIN, not BEGIN IMMEDIATE: TypeORM 1.1 offers no way to say it; a busy writer is retried whole (0001).
    const result = this.sqliteTail.then(() => this.dataSource.transaction(inTransaction));
    this.sqliteTail = result.catch(() => undefined);
    return result;
  }
}

/** 10, 40, 90, then 100 ms plus jitter, so two conflicting writers do not meet again. */
function backoffMs(attempt: number): number {
  return Math.min(attempt * attempt * 10, 100) + Math.floor(Math.random() * 10);
}
