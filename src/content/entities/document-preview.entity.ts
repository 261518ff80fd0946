import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';

export const PREVIEW_SIZES = { small: 256, large: 1024 } as const;
export type PreviewSize = keyof typeof PREVIEW_SIZES;

/**
 * A PNG of a version's first page or image, at most PREVIEW_SIZES[size] pixels on its long side,
 * kept in the file store by its sha256 (the collector spares files a preview names).
 */
@Entity({ name: 'document_previews' })
@Index('IDX_document_previews_sha256', ['sha256'])
export class DocumentPreview {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_previews_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  size: PreviewSize;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ type: 'integer' })
  bytes: number;
}
