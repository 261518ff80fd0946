import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The updatedAt keyset indexes of one document type, over everything and per project. */
export const TYPE_LIST_INDEXES = [
  new TableIndex({ name: 'IDX_documents_type_list', columnNames: ['documentTypeId', 'deletedAt', 'updatedAt', 'id'] }),
  new TableIndex({
    name: 'IDX_documents_project_type_list',
    columnNames: ['projectId', 'documentTypeId', 'deletedAt', 'updatedAt', 'id'],
  }),
];

/**
 * A list filtered by custom fields (issue 29, bench/README.md "Custom field filters") walks the
 * documents of its type in list order and probes each one's value, instead of every document of
 * every type of a project or all the filter's matches sorted afterwards.
 */
export class FieldFilterListIndexes1763800000170 implements MigrationInterface {
  name = 'FieldFilterListIndexes1763800000170';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of TYPE_LIST_INDEXES) await queryRunner.createIndex('documents', index);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of TYPE_LIST_INDEXES) await queryRunner.dropIndex('documents', index.name!);
  }
}
