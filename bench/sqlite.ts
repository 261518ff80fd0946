import { createRequire } from 'node:module';

/** The part of better-sqlite3's API the bench uses (the package ships no types). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  /** From now on all() answers each row as an array of its values. */
  raw(toggle: boolean): SqliteStatement;
}

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<T extends (...args: never[]) => unknown>(fn: T): T;
  close(): void;
}

type SqliteConstructor = new (path: string, options?: { timeout?: number; readonly?: boolean }) => SqliteDatabase;

export function openSqlite(path: string, options?: { timeout?: number; readonly?: boolean }): SqliteDatabase {
  const require = createRequire(import.meta.url);
  const Database = require('better-sqlite3') as SqliteConstructor;
  return new Database(path, options);
}
