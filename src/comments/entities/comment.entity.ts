import { Column, Entity, ForeignKey, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';
import { User } from '../../users/entities/user.entity.js';

/** A remark on a document; declares exactly what migration 1763800000080 creates. */
@Entity({ name: 'document_comments' })
@Index('IDX_document_comments_page', ['documentId', 'createdAt', 'id'])
@Index('IDX_document_comments_author', ['authorId'])
export class Comment {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_document_comments_document', onDelete: 'CASCADE' })
  documentId: string;

  @Column({ type: 'varchar', length: 36 })
  authorId: string;

  @ManyToOne(() => User, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'authorId', foreignKeyConstraintName: 'FK_document_comments_author' })
  author?: User;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  editedAt: Date | null;
}
