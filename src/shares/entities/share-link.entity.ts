import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Document } from '../../documents/entities/document.entity.js';

/**
 * A public link to one document's file. Only the SHA-256 of its token is stored; the token itself
 * is shown once, at creation. Declares exactly what migration 1763800000130 creates.
 */
@Entity({ name: 'share_links' })
@Index('UQ_share_links_token_hash', ['tokenHash'], { unique: true })
@Index('IDX_share_links_document', ['documentId', 'createdAt'])
export class ShareLink {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => Document, { name: 'FK_share_links_document', onDelete: 'CASCADE' })
  documentId: string;

  /** Hex SHA-256 of the token. */
  @Column({ type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ type: 'varchar', length: 36 })
  createdBy: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  expiresAt: Date;

  /** argon2id of the link's password; null: no password. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  passwordHash: string | null;

  @Column({ type: 'integer', nullable: true })
  maxDownloads: number | null;

  @Column({ type: 'integer' })
  downloads: number;

  /** The version it serves; null: whatever version is current at download time. */
  @Column({ type: 'integer', nullable: true })
  version: number | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;
}

/** Whether the link may serve a download at `now`: not revoked, not expired, not used up. */
export function linkServes(
  link: Pick<ShareLink, 'revokedAt' | 'expiresAt' | 'maxDownloads' | 'downloads'>,
  now: Date,
): boolean {
  return (
    link.revokedAt === null &&
    link.expiresAt.getTime() > now.getTime() &&
    (link.maxDownloads === null || link.downloads < link.maxDownloads)
  );
}
