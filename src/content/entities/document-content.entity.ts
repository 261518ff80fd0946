import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { ContentStatus } from '../../documents/dto/document-content.dto.js';
import { Document } from '../../documents/entities/document.entity.js';

export type { ContentStatus };

/**
 * What was read from one version of a document: the extraction's status, its page and character
 * counts, the reason of a failure, and the text (indexed versions only). A version without a row
 * is pending: its job is queued.
 */
@Entity({ name: 'document_contents' })
@Index('IDX_document_contents_status', ['status'])
export class DocumentContent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_contents_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 16 })
  status: ContentStatus;

  @Column({ type: 'integer', nullable: true })
  pages: number | null;

  @Column({ type: 'integer', nullable: true })
  characters: number | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  extractedAt: Date | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  /** A JSON string (the `json` type is TypeORM's portable large text: LONGTEXT on MariaDB). */
  @Column({ type: 'json', nullable: true, select: false })
  text: string | null;
}
