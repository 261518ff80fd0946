import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { hydrateRow } from '../database/raw-rows.js';
import type { Tx } from '../database/transactions.js';
import { User } from '../users/entities/user.entity.js';
import { ShareLink } from './entities/share-link.entity.js';

export type ShareWithCreator = ShareLink & { creatorName: string };

/** At most this many links are listed per document. */
const LIST_LIMIT = 200;

const BY_TOKEN_HASH_SQL =
  'SELECT id, documentId, tokenHash, createdBy, createdAt, expiresAt, passwordHash, maxDownloads, downloads, ' +
  'version, revokedAt FROM share_links WHERE tokenHash = ?';

@Injectable()
export class SharesRepository {
  constructor(@InjectRepository(ShareLink) private readonly shares: Repository<ShareLink>) {}

  async insert(tx: Tx, link: ShareLink): Promise<void> {
    await tx.getRepository(ShareLink).insert(link);
  }

  /** Every download reads the link first: a fixed text, as the guard's read (building it cost more than running it). */
  async findByTokenHash(tokenHash: string): Promise<ShareLink | null> {
    const [row] = await this.shares.query<Record<string, unknown>[]>(BY_TOKEN_HASH_SQL, [tokenHash]);
    return row ? hydrateRow(this.shares, row) : null;
  }

  findById(id: string): Promise<ShareLink | null> {
    return this.shares.findOneBy({ id });
  }

  /** The document's links, newest first, with their creators' usernames. */
  async list(documentId: string): Promise<ShareWithCreator[]> {
    const { entities, raw } = await this.shares
      .createQueryBuilder('s')
      .innerJoin(User, 'u', 'u.id = s.createdBy')
      .addSelect('u.username', 'creatorName')
      .where('s.documentId = :documentId', { documentId })
      .orderBy('s.createdAt', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .limit(LIST_LIMIT)
      .getRawAndEntities<{ creatorName: string; s_id: string }>();
    return entities.map((link) =>
      Object.assign(link, { creatorName: raw.find((row) => row.s_id === link.id)?.creatorName ?? '' }),
    );
  }

  async revoke(tx: Tx, id: string, at: Date): Promise<void> {
    await tx
      .getRepository(ShareLink)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at })
      .where('id = :id AND revokedAt IS NULL', { id })
      .execute();
  }

  /**
   * The links' current counts and limits in the caller's transaction, their rows locked until it
   * ends (SQLite has one writer anyway): what a batch of downloads is counted against.
   */
  async lockForCount(tx: Tx, ids: string[]): Promise<Map<string, ShareLink>> {
    const query = tx
      .getRepository(ShareLink)
      .createQueryBuilder('s')
      .select(['s.id', 's.downloads', 's.maxDownloads', 's.expiresAt', 's.revokedAt'])
      .where('s.id IN (:...ids)', { ids });
    if (tx.connection.options.type !== 'better-sqlite3') query.setLock('pessimistic_write');
    return new Map((await query.getMany()).map((link) => [link.id, link]));
  }

  async addDownloads(tx: Tx, id: string, count: number): Promise<void> {
    await tx
      .getRepository(ShareLink)
      .createQueryBuilder()
      .update()
      .set({ downloads: () => 'downloads + :count' })
      .where('id = :id', { id, count })
      .execute();
  }
}
