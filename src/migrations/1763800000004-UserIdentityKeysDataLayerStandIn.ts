import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * THROW-AWAY stand-in (data-layer branch only): the schema branch owns the real migration that
 * adds users.usernameKey / users.emailKey. Drop this file and its line in index.ts when merging.
 * It creates the contract's columns and unique indexes so this branch's tests can run.
 */
export class UserIdentityKeysDataLayerStandIn1763800000004 implements MigrationInterface {
  name = 'UserIdentityKeysDataLayerStandIn1763800000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN usernameKey varchar(255) NOT NULL DEFAULT ''`);
    await queryRunner.query(`ALTER TABLE users ADD COLUMN emailKey varchar(320) NOT NULL DEFAULT ''`);
    // ASCII-only fold: good enough for the throw-away backfill of test databases (created empty).
    await queryRunner.query('UPDATE users SET usernameKey = LOWER(username), emailKey = LOWER(email)');
    await queryRunner.query('CREATE UNIQUE INDEX UQ_users_username_key ON users (usernameKey)');
    await queryRunner.query('CREATE UNIQUE INDEX UQ_users_email_key ON users (emailKey)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    for (const index of ['UQ_users_username_key', 'UQ_users_email_key']) {
      await queryRunner.query(mysql ? `DROP INDEX ${index} ON users` : `DROP INDEX ${index}`);
    }
    await queryRunner.query('ALTER TABLE users DROP COLUMN usernameKey');
    await queryRunner.query('ALTER TABLE users DROP COLUMN emailKey');
  }
}
