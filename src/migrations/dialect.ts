import type { QueryRunner } from 'typeorm';

/**
 * True on MySQL and MariaDB. The service connects to both as TypeORM type 'mysql'; the migration
 * CLI tells TypeORM 'mariadb' on MariaDB (see matchMysqlServer), and a migration must do the same
 * there as on MySQL.
 */
export function isMysql(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'mysql' || type === 'mariadb';
}
