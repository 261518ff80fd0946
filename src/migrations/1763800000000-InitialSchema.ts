import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

// One portable migration: TypeORM's Table API renders the right DDL for MySQL/MariaDB and SQLite.
const uuid = (name: string) => ({ name, type: 'varchar', length: '36', isNullable: false });
const timestamp = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });

export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Usernames match exactly on both databases (MySQL's default collation would also match
    // "ALICE" and "alicé" to "alice"; SQLite compares bytes).
    const exact = isMysql(queryRunner) ? { collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'roles',
        columns: [
          { ...uuid('id'), isPrimary: true },
          { name: 'name', type: 'varchar', length: '64', isUnique: true },
          { name: 'permissions', type: 'text' },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          { ...uuid('id'), isPrimary: true },
          { name: 'username', type: 'varchar', length: '255', ...exact },
          { name: 'email', type: 'varchar', length: '320' },
          { name: 'firstName', type: 'varchar', length: '100' },
          { name: 'lastName', type: 'varchar', length: '100' },
          { name: 'passwordHash', type: 'varchar', length: '255' },
          { name: 'isActive', type: 'boolean', default: true },
          { name: 'tokenVersion', type: 'integer', default: 0 },
          timestamp('createdAt'),
        ],
        indices: [
          new TableIndex({ name: 'UQ_users_username', columnNames: ['username'], isUnique: true }),
          new TableIndex({ name: 'UQ_users_email', columnNames: ['email'], isUnique: true }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'user_roles',
        columns: [
          { ...uuid('userId'), isPrimary: true },
          { ...uuid('roleId'), isPrimary: true },
        ],
        indices: [new TableIndex({ name: 'IDX_user_roles_roleId', columnNames: ['roleId'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_user_roles_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'FK_user_roles_role',
            columnNames: ['roleId'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'projects',
        columns: [
          { ...uuid('id'), isPrimary: true },
          { name: 'name', type: 'varchar', length: '255' },
          timestamp('createdAt'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'document_types',
        columns: [
          { ...uuid('id'), isPrimary: true },
          { name: 'name', type: 'varchar', length: '100', isUnique: true },
          timestamp('createdAt'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'documents',
        columns: [
          { ...uuid('id'), isPrimary: true },
          uuid('projectId'),
          uuid('documentTypeId'),
          { name: 'title', type: 'varchar', length: '255' },
          { name: 'description', type: 'text' },
          { name: 'fileName', type: 'varchar', length: '255' },
          { name: 'fileSize', type: 'bigint' },
          { name: 'mimeType', type: 'varchar', length: '127' },
          { name: 'currentVersion', type: 'integer', default: 1 },
          { name: 'status', type: 'varchar', length: '32', default: "'draft'" },
          { name: 'tags', type: 'text' },
          { name: 'metadata', type: 'text' },
          uuid('uploadedBy'),
          { name: 'rowVersion', type: 'integer', default: 1 },
          timestamp('createdAt'),
          timestamp('updatedAt'),
        ],
        indices: [
          new TableIndex({ name: 'IDX_documents_uploadedBy', columnNames: ['uploadedBy'] }),
          new TableIndex({ name: 'IDX_documents_projectId', columnNames: ['projectId'] }),
          new TableIndex({ name: 'IDX_documents_documentTypeId', columnNames: ['documentTypeId'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_documents_project',
            columnNames: ['projectId'],
            referencedTableName: 'projects',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          }),
          new TableForeignKey({
            name: 'FK_documents_document_type',
            columnNames: ['documentTypeId'],
            referencedTableName: 'document_types',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          }),
          new TableForeignKey({
            name: 'FK_documents_uploader',
            columnNames: ['uploadedBy'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'document_history',
        columns: [
          { ...uuid('id'), isPrimary: true },
          uuid('documentId'),
          uuid('changedBy'),
          timestamp('changedAt'),
          { name: 'rowVersion', type: 'integer' },
          { name: 'changes', type: 'text' },
        ],
        indices: [new TableIndex({ name: 'IDX_document_history_document', columnNames: ['documentId', 'changedAt'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_history_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'FK_document_history_user',
            columnNames: ['changedBy'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          }),
        ],
      }),
    );

    // The list is always "one user's notifications, newest first": every index leads with
    // userId and ends with (createdAt, id) so each filter is an index range read in order.
    await queryRunner.createTable(
      new Table({
        name: 'notifications',
        columns: [
          { ...uuid('id'), isPrimary: true },
          uuid('userId'),
          { name: 'subject', type: 'varchar', length: '255' },
          { name: 'message', type: 'text' },
          { name: 'notificationType', type: 'varchar', length: '16' },
          { name: 'status', type: 'varchar', length: '16' },
          timestamp('readAt', true),
          timestamp('createdAt'),
        ],
        indices: [
          new TableIndex({ name: 'IDX_notifications_user_created', columnNames: ['userId', 'createdAt', 'id'] }),
          new TableIndex({
            name: 'IDX_notifications_user_status_created',
            columnNames: ['userId', 'status', 'createdAt', 'id'],
          }),
          new TableIndex({
            name: 'IDX_notifications_user_type_created',
            columnNames: ['userId', 'notificationType', 'createdAt', 'id'],
          }),
          new TableIndex({
            name: 'IDX_notifications_user_read_created',
            columnNames: ['userId', 'readAt', 'createdAt', 'id'],
          }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_notifications_user',
            columnNames: ['userId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'notifications',
      'document_history',
      'documents',
      'document_types',
      'projects',
      'user_roles',
      'users',
      'roles',
    ]) {
      await queryRunner.dropTable(table);
    }
  }
}
