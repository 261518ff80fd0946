import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

/**
 * Saved searches (src/saved-searches), the documents each alerting one currently matches, and the
 * outbox's progress marker for the matcher (`searchesMatchedAt`, plain ALTER TABLE so SQLite keeps
 * the outbox's triggers). Events recorded before this migration are marked as matched.
 */
export class SavedSearches1763800000146 implements MigrationInterface {
  name = 'SavedSearches1763800000146';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = isMysql(queryRunner);
    await queryRunner.query(
      `ALTER TABLE outbox_events ADD COLUMN searchesMatchedAt ${mysql ? 'datetime(3) NULL' : 'datetime(3)'}`,
    );
    await queryRunner.query('UPDATE outbox_events SET searchesMatchedAt = createdAt');
    await queryRunner.query(
      'CREATE INDEX IDX_outbox_events_searches_pending ON outbox_events (searchesMatchedAt, createdAt)',
    );

    await queryRunner.createTable(
      new Table({
        name: 'saved_searches',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'ownerId', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '255' },
          { name: 'q', type: 'varchar', length: '200', isNullable: true },
          { name: 'filters', type: 'json' },
          { name: 'alert', type: 'boolean' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'updatedAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_saved_searches_owner', columnNames: ['ownerId', 'createdAt', 'id'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_saved_searches_owner',
            columnNames: ['ownerId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'saved_searches',
      ids: ['id', 'ownerId'],
      timestamps: ['createdAt', 'updatedAt'],
    });

    await queryRunner.createTable(
      new Table({
        name: 'saved_search_matches',
        columns: [
          { name: 'savedSearchId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'matchedAt', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'IDX_saved_search_matches_document', columnNames: ['documentId'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_saved_search_matches_search',
            columnNames: ['savedSearchId'],
            referencedTableName: 'saved_searches',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_saved_search_matches_document',
            columnNames: ['documentId'],
            referencedTableName: 'documents',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'saved_search_matches',
      ids: ['savedSearchId', 'documentId'],
      timestamps: ['matchedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropCanonicalFormTriggers(queryRunner, 'saved_search_matches');
    await queryRunner.dropTable('saved_search_matches');
    await dropCanonicalFormTriggers(queryRunner, 'saved_searches');
    await queryRunner.dropTable('saved_searches');
    const onTable = isMysql(queryRunner) ? ' ON outbox_events' : '';
    await queryRunner.query(`DROP INDEX IDX_outbox_events_searches_pending${onTable}`);
    await queryRunner.query('ALTER TABLE outbox_events DROP COLUMN searchesMatchedAt');
  }
}
