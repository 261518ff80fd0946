import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import { Document } from './document.entity.js';

/**
 * One stored file version of a document. Version numbers count from 1; the document row repeats
 * its current version's file fields. `sha256` addresses the bytes in the file store (identical
 * bytes are stored once); it is null only for versions migrated from before files were stored.
 */
@Entity({ name: 'document_versions' })
@Index('IDX_document_versions_sha256', ['sha256'])
export class DocumentVersion {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_versions_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 255 })
  fileName: string;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  fileSize: number;

  @Column({ type: 'varchar', length: 127 })
  mimeType: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  sha256: string | null;

  @Column({ type: 'varchar', length: 1000, default: '' })
  comment: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_document_versions_user', onDelete: 'RESTRICT' })
  uploadedBy: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
