import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './dialect.js';

const REFUSED = 'audit chain: the event does not follow the chain head';

/**
 * The chain head follows each chained audit event by trigger: the event's INSERT moves the head in
 * the same statement (one round trip less while the head is locked) and is refused when it does not
 * follow the head (sequence + 1, previousHash = the head's hash), so the database itself cannot
 * fork the chain. Unchained rows (sequence null) pass untouched.
 */
export class AuditChainHeadTrigger1763800000160 implements MigrationInterface {
  name = 'AuditChainHeadTrigger1763800000160';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_audit_events_chain');
    if (isMysql(queryRunner)) {
      await queryRunner.query(
        `CREATE TRIGGER trg_audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW BEGIN
           IF NEW.sequence IS NOT NULL THEN
             UPDATE audit_chain_head SET sequence = NEW.sequence, hash = NEW.hash, at = NEW.at
               WHERE id = 1 AND sequence = NEW.sequence - 1 AND hash = NEW.previousHash;
             IF ROW_COUNT() <> 1 THEN
               SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${REFUSED}';
             END IF;
           END IF;
         END`,
      );
      return;
    }
    await queryRunner.query(
      `CREATE TRIGGER trg_audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW
         WHEN NEW.sequence IS NOT NULL BEGIN
           SELECT RAISE(ABORT, '${REFUSED}') WHERE NOT EXISTS (
             SELECT 1 FROM audit_chain_head WHERE id = 1 AND sequence = NEW.sequence - 1 AND hash = NEW.previousHash);
           UPDATE audit_chain_head SET sequence = NEW.sequence, hash = NEW.hash, at = NEW.at WHERE id = 1;
         END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER IF EXISTS trg_audit_events_chain');
  }
}
