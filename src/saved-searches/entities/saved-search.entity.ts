import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { DocumentStatus } from '../../documents/entities/document.entity.js';
import { User } from '../../users/entities/user.entity.js';

/** The document list's filters a saved search keeps, in the list's own form (tags comma-separated). */
export interface SavedSearchFilters {
  projectId?: string;
  documentTypeId?: string;
  status?: DocumentStatus;
  uploadedBy?: string;
  tags?: string;
}

/** A user's saved document search (migration 1763800000146); with `alert`, new matches notify the owner. */
@Entity({ name: 'saved_searches' })
@Index('IDX_saved_searches_owner', ['ownerId', 'createdAt', 'id'])
export class SavedSearch {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_saved_searches_owner', onDelete: 'CASCADE' })
  ownerId: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  q: string | null;

  @Column({ type: 'json' })
  filters: SavedSearchFilters;

  @Column({ type: 'boolean' })
  alert: boolean;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt: Date;
}
