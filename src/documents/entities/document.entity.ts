import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import { DocumentType } from '../../document-types/entities/document-type.entity.js';
import { Project } from '../../projects/entities/project.entity.js';

/** The review workflow's states (see DOCUMENT_TRANSITIONS in the service for the moves between them). */
export const DOCUMENT_STATUSES = ['draft', 'in_review', 'published', 'archived'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

@Entity({ name: 'documents' })
// The list's keyset indexes (migration DocumentSearchAndWorkflow); the full-text tables are unknown to TypeORM.
@Index('IDX_documents_project_list', ['projectId', 'deletedAt', 'updatedAt', 'id'])
@Index('IDX_documents_uploader_list', ['uploadedBy', 'deletedAt', 'updatedAt', 'id'])
@Index('IDX_documents_deleted_list', ['deletedAt', 'updatedAt', 'id'])
@Index('IDX_documents_documentTypeId', ['documentTypeId'])
// The createdAt and title sorts' keyset indexes (migration DocumentCounts).
@Index('IDX_documents_project_created', ['projectId', 'deletedAt', 'createdAt', 'id'])
@Index('IDX_documents_project_title', ['projectId', 'deletedAt', 'title', 'id'])
@Index('IDX_documents_deleted_created', ['deletedAt', 'createdAt', 'id'])
@Index('IDX_documents_deleted_title', ['deletedAt', 'title', 'id'])
// One type's documents in list order, for custom field filters (migration FieldFilterListIndexes).
@Index('IDX_documents_type_list', ['documentTypeId', 'deletedAt', 'updatedAt', 'id'])
@Index('IDX_documents_project_type_list', ['projectId', 'documentTypeId', 'deletedAt', 'updatedAt', 'id'])
export class Document {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  projectId: string;

  @ManyToOne(() => Project, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'projectId', foreignKeyConstraintName: 'FK_documents_project' })
  project?: Project;

  @Column({ type: 'varchar', length: 36 })
  documentTypeId: string;

  @ManyToOne(() => DocumentType, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'documentTypeId', foreignKeyConstraintName: 'FK_documents_document_type' })
  documentType?: DocumentType;

  @Column({ type: 'varchar', length: 255 })
  title: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'varchar', length: 255 })
  fileName: string;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  fileSize: number;

  @Column({ type: 'varchar', length: 127 })
  mimeType: string;

  @Column({ type: 'integer', default: 1 })
  currentVersion: number;

  @Column({ type: 'varchar', length: 32, default: 'draft' })
  status: DocumentStatus;

  @Column({ type: 'simple-json' })
  tags: string[];

  @Column({ type: 'simple-json' })
  metadata: Record<string, unknown>;

  /** Custom field values by key (src/custom-fields; null: none), as answers show them. */
  @Column({ type: 'simple-json', nullable: true })
  fields: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 36 })
  uploadedBy: string;

  @ManyToOne(() => User, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'uploadedBy', foreignKeyConstraintName: 'FK_documents_uploader' })
  uploader?: User;

  /** Row version for optimistic concurrency; it backs the ETag and changes on every write. */
  @Column({ type: 'integer', default: 1 })
  rowVersion: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt: Date;

  /** SHA-256 (hex) of the current version's bytes; null only for documents migrated without a file. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sha256: string | null;

  /** Set while the document is in the trash (every route but restore and the trash list answers 404). */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  deletedAt: Date | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  deletedBy: string | null;
}
