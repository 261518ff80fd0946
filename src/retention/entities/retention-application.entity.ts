import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RetentionAction } from '../../document-types/retention-policy.js';

/**
 * A document retention acted on: one row per document (the primary key makes the action happen
 * once), kept after a purge. Declares exactly what migration 1763800000137 creates.
 */
@Entity({ name: 'retention_applications' })
export class RetentionApplication {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  documentTypeId: string;

  @Column({ type: 'varchar', length: 16 })
  action: RetentionAction;

  @Column({ type: 'datetime', precision: 3 })
  appliedAt: Date;
}
