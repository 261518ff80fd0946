import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import { Document } from './document.entity.js';

/**
 * Someone who takes part in a document: its uploader and everyone who changed it. Written in the
 * transaction of the change that makes them one; read when a document event is dispatched.
 */
@Entity({ name: 'document_participants' })
@Index('IDX_document_participants_user', ['userId'])
export class DocumentParticipant {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_participants_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_document_participants_user', onDelete: 'CASCADE' })
  userId: string;
}
