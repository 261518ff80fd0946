import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An upload in flight: registered (committed) before its file is placed in the store, and deleted
 * in the transaction that commits the row naming the file, or when the upload fails. The
 * collector never removes a file that a pending row younger than the upload deadline names.
 */
@Entity({ name: 'pending_files' })
@Index('IDX_pending_files_sha256', ['sha256'])
export class PendingFile {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
