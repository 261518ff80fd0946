import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';
import { User } from '../../users/entities/user.entity.js';

export const DOCUMENT_WATCH_STATES = ['watching', 'muted'] as const;
export type DocumentWatchState = (typeof DOCUMENT_WATCH_STATES)[number];

/** A user watching (hears of every event) or muting (hears of none) one document. */
@Entity({ name: 'document_watches' })
@Index('IDX_document_watches_user', ['userId'])
export class DocumentWatch {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_watches_document', onDelete: 'CASCADE' })
  documentId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_document_watches_user', onDelete: 'CASCADE' })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  state: DocumentWatchState;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
