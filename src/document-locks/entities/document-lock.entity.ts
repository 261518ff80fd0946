import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';

/** A document's check-out lock: held by holderId until expiresAt (a row past it is no lock). */
@Entity({ name: 'document_locks' })
export class DocumentLock {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_locks_document', onDelete: 'CASCADE' })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  holderId: string;

  @Column({ type: 'datetime', precision: 3 })
  acquiredAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  expiresAt: Date;
}
