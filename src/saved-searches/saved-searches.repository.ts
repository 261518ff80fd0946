import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, In, IsNull, type Repository } from 'typeorm';
import type { KeysetCursor } from '../common/pagination/keyset-cursor.js';
import type { Tx } from '../database/transactions.js';
import { Document } from '../documents/entities/document.entity.js';
import { OutboxEvent } from '../events/entities/outbox-event.entity.js';
import { User } from '../users/entities/user.entity.js';
import { SavedSearchMatch } from './entities/saved-search-match.entity.js';
import { SavedSearch } from './entities/saved-search.entity.js';
import type { DocumentFacts } from './saved-search-index.js';

const IN_CHUNK = 500;

/** Every statement of saved searches: the searches, their matches, and the outbox's matcher marker. */
@Injectable()
export class SavedSearchesRepository {
  private readonly searches: Repository<SavedSearch>;
  private readonly matches: Repository<SavedSearchMatch>;
  private readonly events: Repository<OutboxEvent>;
  private readonly mysql: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.searches = dataSource.getRepository(SavedSearch);
    this.matches = dataSource.getRepository(SavedSearchMatch);
    this.events = dataSource.getRepository(OutboxEvent);
    this.mysql = dataSource.options.type === 'mysql';
  }

  find(id: string): Promise<SavedSearch | null> {
    return this.searches.findOneBy({ id });
  }

  /** One page of a user's saved searches, oldest first; `limit + 1` tells if more follow. */
  page(ownerId: string, limit: number, after?: KeysetCursor): Promise<SavedSearch[]> {
    const query = this.searches
      .createQueryBuilder('s')
      .where('s.ownerId = :ownerId', { ownerId })
      .orderBy('s.createdAt', 'ASC')
      .addOrderBy('s.id', 'ASC')
      .take(limit + 1);
    if (after) {
      query.andWhere(
        new Brackets((keyset) =>
          keyset
            .where('s.createdAt > :at', { at: after.at })
            .orWhere('s.createdAt = :at AND s.id > :id', { at: after.at, id: after.id }),
        ),
      );
    }
    return query.getMany();
  }

  async insert(tx: Tx, search: SavedSearch): Promise<void> {
    await tx.getRepository(SavedSearch).insert(search);
  }

  async update(tx: Tx, id: string, fields: Partial<Omit<SavedSearch, 'id'>>): Promise<void> {
    await tx.getRepository(SavedSearch).update({ id }, fields);
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(SavedSearch).delete({ id });
  }

  /** Every alerting saved search (the matcher's index), with what tells whether it changed. */
  alerting(): Promise<SavedSearch[]> {
    return this.searches.findBy({ alert: true });
  }

  /** Changes when any saved search is created, changed or deleted: (count, newest updatedAt). */
  async signature(): Promise<string> {
    const row = await this.searches
      .createQueryBuilder('s')
      .select('COUNT(*)', 'n')
      .addSelect('MAX(s.updatedAt)', 'at')
      .getRawOne<{ n: number | string; at: unknown }>();
    return `${row?.n}:${String(row?.at)}`;
  }

  // ---- Matches ----

  async replaceMatches(tx: Tx, savedSearchId: string, documentIds: string[], at: Date): Promise<void> {
    await tx.getRepository(SavedSearchMatch).delete({ savedSearchId });
    for (let start = 0; start < documentIds.length; start += IN_CHUNK) {
      const rows = documentIds
        .slice(start, start + IN_CHUNK)
        .map((documentId) => ({ savedSearchId, documentId, matchedAt: at }));
      await tx
        .createQueryBuilder()
        .insert()
        .into(SavedSearchMatch)
        .values(rows)
        .orIgnore()
        .updateEntity(false)
        .execute();
    }
  }

  async clearMatches(tx: Tx, savedSearchId: string): Promise<void> {
    await tx.getRepository(SavedSearchMatch).delete({ savedSearchId });
  }

  /** The saved searches that currently match the document. */
  async matchesOf(documentId: string): Promise<string[]> {
    return (await this.matches.find({ select: { savedSearchId: true }, where: { documentId } })).map(
      (row) => row.savedSearchId,
    );
  }

  /** Records a new match; answers false when it was recorded already (no second alert). */
  async addMatch(tx: Tx, savedSearchId: string, documentId: string, at: Date): Promise<boolean> {
    const [sql, parameters] = tx
      .createQueryBuilder()
      .insert()
      .into(SavedSearchMatch)
      .values({ savedSearchId, documentId, matchedAt: at })
      .orIgnore()
      .updateEntity(false)
      .getQueryAndParameters();
    const result = await tx.queryRunner!.query(sql, parameters, true);
    return (result.affected ?? 0) === 1;
  }

  async removeMatches(tx: Tx, documentId: string, savedSearchIds: string[]): Promise<void> {
    if (savedSearchIds.length === 0) return;
    await tx.getRepository(SavedSearchMatch).delete({ documentId, savedSearchId: In(savedSearchIds) });
  }

  // ---- What matching reads ----

  async documentFacts(id: string): Promise<DocumentFacts | null> {
    const document = await this.dataSource.getRepository(Document).findOne({
      select: {
        id: true,
        projectId: true,
        documentTypeId: true,
        status: true,
        uploadedBy: true,
        tags: true,
        title: true,
        description: true,
        fileName: true,
        deletedAt: true,
        rowVersion: true,
      },
      where: { id },
    });
    return document;
  }

  /** The active users among `ids`. */
  async activeAmong(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = await this.dataSource
      .getRepository(User)
      .find({ select: { id: true }, where: { id: In(ids), isActive: true } });
    return found.map((user) => user.id);
  }

  /** Whether the document still has this rowVersion (read in the matcher's write transaction). */
  async unchanged(tx: Tx, documentId: string, rowVersion: number): Promise<boolean> {
    return tx.getRepository(Document).existsBy({ id: documentId, rowVersion });
  }

  // ---- The outbox, as the matcher reads it ----

  pendingEvents(limit: number): Promise<OutboxEvent[]> {
    return this.events.find({ where: { searchesMatchedAt: IsNull() }, order: { createdAt: 'ASC' }, take: limit });
  }

  /** Claims one event for the matcher in the caller's transaction (see DeliveryRepository.claimEvent). */
  async claimEvent(tx: Tx, id: string, now: Date): Promise<boolean> {
    if (this.mysql) {
      const free = await tx
        .createQueryBuilder(OutboxEvent, 'e')
        .select('e.id')
        .where('e.id = :id AND e.searchesMatchedAt IS NULL', { id })
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getRawMany();
      if (free.length === 0) return false;
    }
    const result = await tx.update(OutboxEvent, { id, searchesMatchedAt: IsNull() }, { searchesMatchedAt: now });
    return result.affected === 1;
  }

  async markMatched(tx: Tx, ids: string[], now: Date): Promise<void> {
    for (let start = 0; start < ids.length; start += IN_CHUNK) {
      const chunk = ids.slice(start, start + IN_CHUNK);
      await tx.update(OutboxEvent, { id: In(chunk), searchesMatchedAt: IsNull() }, { searchesMatchedAt: now });
    }
  }
}
