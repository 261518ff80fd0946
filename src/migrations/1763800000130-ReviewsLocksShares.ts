import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createCanonicalFormTriggers, dropCanonicalFormTriggers } from './sqlite-canonical-forms.js';

const onDocument = (table: string) =>
  // A purged document takes its reviews, lock and share links with it.
  new TableForeignKey({
    name: `FK_${table}_document`,
    columnNames: ['documentId'],
    referencedTableName: 'documents',
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
    onUpdate: 'NO ACTION',
  });

/** Governance (issue 29, part A): reviews with reviewers and due dates, check-out locks, share links. */
export class ReviewsLocksShares1763800000130 implements MigrationInterface {
  name = 'ReviewsLocksShares1763800000130';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'document_reviews',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36' },
          { name: 'requestedBy', type: 'varchar', length: '36' },
          { name: 'message', type: 'varchar', length: '2000' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'dueAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'closedAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'reminderSentAt', type: 'datetime', precision: 3, isNullable: true },
          { name: 'overdueSentAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'IDX_document_reviews_document', columnNames: ['documentId', 'createdAt'] }),
          new TableIndex({ name: 'IDX_document_reviews_due', columnNames: ['state', 'dueAt'] }),
        ],
        foreignKeys: [onDocument('document_reviews')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'document_review_reviewers',
        columns: [
          { name: 'reviewId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'reviewerId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36' },
          { name: 'awaiting', type: 'boolean' },
          { name: 'dueOrder', type: 'datetime', precision: 3 },
          { name: 'decision', type: 'varchar', length: '16', isNullable: true },
          { name: 'comment', type: 'varchar', length: '2000', isNullable: true },
          { name: 'decidedAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_document_review_reviewers_inbox',
            columnNames: ['reviewerId', 'awaiting', 'dueOrder', 'reviewId'],
          }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'FK_document_review_reviewers_review',
            columnNames: ['reviewId'],
            referencedTableName: 'document_reviews',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: 'NO ACTION',
          }),
          new TableForeignKey({
            name: 'FK_document_review_reviewers_reviewer',
            columnNames: ['reviewerId'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
            onUpdate: 'NO ACTION',
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'document_locks',
        columns: [
          { name: 'documentId', type: 'varchar', length: '36', isPrimary: true },
          { name: 'holderId', type: 'varchar', length: '36' },
          { name: 'acquiredAt', type: 'datetime', precision: 3 },
          { name: 'expiresAt', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [onDocument('document_locks')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'share_links',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'documentId', type: 'varchar', length: '36' },
          { name: 'tokenHash', type: 'varchar', length: '64' },
          { name: 'createdBy', type: 'varchar', length: '36' },
          { name: 'createdAt', type: 'datetime', precision: 3 },
          { name: 'expiresAt', type: 'datetime', precision: 3 },
          { name: 'passwordHash', type: 'varchar', length: '255', isNullable: true },
          { name: 'maxDownloads', type: 'integer', isNullable: true },
          { name: 'downloads', type: 'integer' },
          { name: 'version', type: 'integer', isNullable: true },
          { name: 'revokedAt', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'UQ_share_links_token_hash', columnNames: ['tokenHash'], isUnique: true }),
          new TableIndex({ name: 'IDX_share_links_document', columnNames: ['documentId', 'createdAt'] }),
        ],
        foreignKeys: [onDocument('share_links')],
      }),
    );
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_reviews',
      ids: ['id', 'documentId', 'requestedBy'],
      timestamps: ['createdAt'],
      nullableTimestamps: ['dueAt', 'closedAt', 'reminderSentAt', 'overdueSentAt'],
    });
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_review_reviewers',
      ids: ['reviewId', 'reviewerId', 'documentId'],
      timestamps: ['dueOrder'],
      nullableTimestamps: ['decidedAt'],
    });
    await createCanonicalFormTriggers(queryRunner, {
      table: 'document_locks',
      ids: ['documentId', 'holderId'],
      timestamps: ['acquiredAt', 'expiresAt'],
    });
    await createCanonicalFormTriggers(queryRunner, {
      table: 'share_links',
      ids: ['id', 'documentId', 'createdBy'],
      timestamps: ['createdAt', 'expiresAt'],
      nullableTimestamps: ['revokedAt'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['share_links', 'document_locks', 'document_review_reviewers', 'document_reviews']) {
      await dropCanonicalFormTriggers(queryRunner, table);
      await queryRunner.dropTable(table);
    }
  }
}
