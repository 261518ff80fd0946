import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

/**
 * document_history.changes holds the old and the new value of every changed field as JSON. Within
 * the update bounds (src/documents/dto/update-document.dto.ts) the worst case, counting 6 bytes per
 * character (JSON writes a lone surrogate or control character as \uXXXX; any other character is
 * at most 4 bytes in utf8mb4), stays under 234 KB:
 *   title       2 x (255 chars x 6 + 2)              <=   3,064
 *   description 2 x (10,000 chars x 6 + 2)           <= 120,004
 *   tags        2 x (100 x (64 chars x 6 + 3) + 2)   <=  77,404
 *   metadata    2 x 16,384 bytes (already JSON)      <=  32,768
 *   field names, "from", "to", braces                <      200
 * MySQL's TEXT holds 65,535 bytes, so a valid update could fail; LONGTEXT holds 4 GiB (MEDIUMTEXT's
 * 16 MiB would do too, but TypeORM's portable large type is `json`, which it compares equal to
 * LONGTEXT: see DocumentHistory.changes). LONGTEXT rather than MySQL 8's binary JSON type, which
 * reorders keys and refuses lone surrogates. The other text columns fit their TEXT: description
 * 10,000 x 4 = 40,000 bytes, tags 100 x (64 x 6 + 3) + 2 = 38,702, metadata 16,384.
 * SQLite has no length limit; its column is only re-declared `json` so that it matches the entity.
 */
export class DocumentHistoryLongChanges1763800000006 implements MigrationInterface {
  name = 'DocumentHistoryLongChanges1763800000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (isMysql(queryRunner)) {
      await queryRunner.query('ALTER TABLE `document_history` MODIFY `changes` LONGTEXT NOT NULL');
    } else {
      await queryRunner.changeColumn('document_history', 'changes', new TableColumn({ name: 'changes', type: 'json' }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // In strict mode MySQL refuses (rather than truncates) a history entry that no longer fits.
    if (isMysql(queryRunner)) {
      await queryRunner.query('ALTER TABLE `document_history` MODIFY `changes` TEXT NOT NULL');
    } else {
      await queryRunner.changeColumn('document_history', 'changes', new TableColumn({ name: 'changes', type: 'text' }));
    }
  }
}
