import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import { Document } from './document.entity.js';

export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** What a history entry records; `changes` holds the fields it changed (from/to). */
export const DOCUMENT_HISTORY_ACTIONS = [
  'created',
  'updated',
  'version_added',
  'status_changed',
  'deleted',
  'restored',
] as const;
export type DocumentHistoryAction = (typeof DOCUMENT_HISTORY_ACTIONS)[number];

/** One row per change of a document, written in the same transaction as the change itself. */
@Entity({ name: 'document_history' })
@Index('IDX_document_history_document', ['documentId', 'changedAt'])
// A document's authors, read off the index (the DocumentParticipants migration's backfill).
@Index('IDX_document_history_author', ['documentId', 'changedBy'])
export class DocumentHistory {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_history_document', onDelete: 'CASCADE' })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_document_history_user', onDelete: 'RESTRICT' })
  changedBy: string;

  @Column({ type: 'datetime', precision: 3 })
  changedAt: Date;

  /** The row version the update produced. */
  @Column({ type: 'integer' })
  rowVersion: number;

  /**
   * Old and new value of every changed field, as JSON: up to ~235 KB within the update bounds
   * (see the DocumentHistoryLongChanges migration), more than MySQL's TEXT holds. `json` is the one
   * TypeORM type that is portable and large: on MySQL the column is LONGTEXT (what MariaDB makes
   * of JSON, and what TypeORM compares `json` equal to), so values keep their text exactly.
   */
  @Column({ type: 'json' })
  changes: Record<string, FieldChange>;

  @Column({ type: 'varchar', length: 32, default: 'updated' })
  action: DocumentHistoryAction;
}
