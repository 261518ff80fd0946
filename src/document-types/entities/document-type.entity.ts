import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import type { RetentionAction, RetentionFrom } from '../retention-policy.js';

// The unique's name is the one TypeORM's Table API generated for InitialSchema's `isUnique` column.
@Entity({ name: 'document_types' })
@Unique('UQ_803cd247b7c1c8d91b30a3eb210', ['name'])
@Index('UQ_document_types_name_key', ['nameKey'], { unique: true })
export class DocumentType {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /**
   * identityKey(name), uniquely indexed, so "Contract" and "CONTRACT" cannot both exist (migrations
   * 1763800000021 and 1763800000022). DocumentTypesRepository computes it on every write.
   */
  @Column({ type: 'varchar', length: 255, collation: 'utf8mb4_bin' })
  nameKey: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  /** Retention (migration 1763800000137): all three set, or none. */
  @Column({ type: 'integer', nullable: true })
  retentionDays: number | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  retentionFrom: RetentionFrom | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  retentionAction: RetentionAction | null;

  /** Who last set the retention: the scheduled job acts in their name (history, audit). */
  @Column({ type: 'varchar', length: 36, nullable: true })
  retentionSetBy: string | null;
}
