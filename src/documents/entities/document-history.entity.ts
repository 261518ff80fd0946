import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** One row per successful update, written in the same transaction as the update itself. */
@Entity({ name: 'document_history' })
@Index('IDX_document_history_document', ['documentId', 'changedAt'])
export class DocumentHistory {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  changedBy: string;

  @Column({ type: 'datetime', precision: 3 })
  changedAt: Date;

  /** The row version the update produced. */
  @Column({ type: 'integer' })
  rowVersion: number;

  @Column({ type: 'simple-json' })
  changes: Record<string, FieldChange>;
}
