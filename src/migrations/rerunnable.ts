import type { MigrationInterface, QueryRunner } from 'typeorm';
import { driverCode } from '../database/database-errors.js';
import { isMysql } from './dialect.js';

/** What MySQL answers for DDL that a first, interrupted run of the same migration already did. */
const ALREADY_DONE = new Set([
  'ER_TABLE_EXISTS_ERROR',
  'ER_BAD_TABLE_ERROR',
  'ER_DUP_FIELDNAME',
  'ER_DUP_KEYNAME',
  'ER_CANT_DROP_FIELD_OR_KEY',
  'ER_TRG_ALREADY_EXISTS',
  'ER_TRG_DOES_NOT_EXIST',
  'ER_FK_DUP_NAME',
]);
const DDL = /^\s*(CREATE|ALTER|DROP|RENAME)\s/i;

// oxlint-disable-next-line typescript/no-explicit-any -- TypeScript's mixin rule
type MigrationClass = new (...args: any[]) => MigrationInterface;

/**
 * MySQL commits each DDL statement by itself, so a migration that failed half-way left some of its
 * work behind. Run again, its DDL skips what is already there; SQLite rolls the whole migration back.
 */
export function rerunnable<T extends MigrationClass>(Migration: T): T {
  const Rerunnable = class extends Migration {
    override async up(queryRunner: QueryRunner): Promise<void> {
      await super.up(isMysql(queryRunner) ? skippingDoneDdl(queryRunner) : queryRunner);
    }
  };
  // TypeORM and the tests name a migration by its class.
  return Object.defineProperty(Rerunnable, 'name', { value: Migration.name });
}

function skippingDoneDdl(queryRunner: QueryRunner): QueryRunner {
  return new Proxy(queryRunner, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return async (sql: string, ...rest: unknown[]) => {
        try {
          return await (target.query as (sql: string, ...rest: unknown[]) => Promise<unknown>).call(
            target,
            sql,
            ...rest,
          );
        } catch (error) {
          if (DDL.test(sql) && ALREADY_DONE.has(driverCode(error) ?? '')) return undefined;
          throw error;
        }
      };
    },
  });
}
