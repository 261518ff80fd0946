import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * How many live documents one (project, uploader, status, type) has; uploadedBy '' counts every
 * uploader of the project. Kept by DocumentCounts in each write's transaction (migration DocumentCounts).
 */
@Entity({ name: 'document_counts' })
@Index('IDX_document_counts_uploader', ['uploadedBy', 'status', 'documentTypeId', 'projectId', 'total'])
export class DocumentCount {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  projectId: string;

  /** '' for the project's row over every uploader. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  uploadedBy: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  status: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  documentTypeId: string;

  /** BIGINT: mysql2 returns it as a string. */
  @Column({
    type: 'bigint',
    transformer: { to: (value: number) => value, from: (value: string | number) => Number(value) },
  })
  total: number;
}
