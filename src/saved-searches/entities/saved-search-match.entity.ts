import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';
import { SavedSearch } from './saved-search.entity.js';

/** A document an alerting saved search matches now: its alert was sent, and is not sent again while the row stays. */
@Entity({ name: 'saved_search_matches' })
@Index('IDX_saved_search_matches_document', ['documentId'])
export class SavedSearchMatch {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => SavedSearch, { name: 'FK_saved_search_matches_search', onDelete: 'CASCADE' })
  savedSearchId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_saved_search_matches_document', onDelete: 'CASCADE' })
  documentId: string;

  @Column({ type: 'datetime', precision: 3 })
  matchedAt: Date;
}
