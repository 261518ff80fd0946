import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';
import { LegalHold } from './legal-hold.entity.js';

/**
 * A document a hold names. The foreign key to documents restricts deletion: even a path that
 * forgot the guard could not remove a held document.
 */
@Entity({ name: 'legal_hold_documents' })
@Index('IDX_legal_hold_documents_document', ['documentId'])
export class LegalHoldDocument {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => LegalHold, { name: 'FK_legal_hold_documents_hold', onDelete: 'CASCADE' })
  holdId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_legal_hold_documents_document', onDelete: 'RESTRICT' })
  documentId: string;
}
