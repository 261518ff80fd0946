import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';
import { Clock } from '../common/time/clock.js';
import { Transactions } from '../database/transactions.js';
import { encodeDocumentCursor } from '../documents/document-cursor.js';
import { DocumentsService, type DocumentPage } from '../documents/documents.service.js';
import { ListDocumentsQueryDto } from '../documents/dto/list-documents-query.dto.js';
import type { CreateSavedSearchDto, RunSavedSearchQueryDto, UpdateSavedSearchDto } from './dto/saved-search.dto.js';
import { SavedSearch, type SavedSearchFilters } from './entities/saved-search.entity.js';
import { SavedSearchesRepository } from './saved-searches.repository.js';

/** Documents an alerting search is taken to match already when it is saved (they raise no alert). */
const SEED_LIMIT = 1_000;

/** A saved search's list query: its q and filters, with the caller's paging. */
export function listQuery(
  search: Pick<SavedSearch, 'q' | 'filters'>,
  paging: Partial<ListDocumentsQueryDto>,
): ListDocumentsQueryDto {
  return Object.assign(new ListDocumentsQueryDto(), {
    ...search.filters,
    ...(search.q ? { q: search.q } : {}),
    ...paging,
  });
}

/** Saved searches are their owner's alone: anyone else is told they do not exist. */
@Injectable()
export class SavedSearchesService {
  constructor(
    private readonly searches: SavedSearchesRepository,
    private readonly documents: DocumentsService,
    private readonly audit: AuditTrail,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateSavedSearchDto, user: AuthenticatedUser, audit: AuditContext): Promise<SavedSearch> {
    const now = this.clock.now();
    const search: SavedSearch = {
      id: randomUUID(),
      ownerId: user.id,
      name: input.name,
      q: input.q ?? null,
      filters: plainFilters(input.filters),
      alert: input.alert,
      createdAt: now,
      updatedAt: now,
    };
    // Validates q and the filters as the list does (sort, words), before anything is stored.
    const current = search.alert ? await this.currentMatches(search, user) : [];
    await this.transactions.run(async (tx) => {
      await this.searches.insert(tx, search);
      if (search.alert) await this.searches.replaceMatches(tx, search.id, current, now);
      await this.audit.record(tx, audit, {
        action: 'saved_search.created',
        targetType: 'saved_search',
        targetId: search.id,
        changes: {
          name: { from: null, to: search.name },
          q: { from: null, to: search.q },
          filters: { from: null, to: search.filters },
          alert: { from: null, to: search.alert },
        },
      });
    });
    return search;
  }

  async list(
    user: AuthenticatedUser,
    limit: number,
    cursor?: string,
  ): Promise<{ searches: SavedSearch[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor);
    const rows = await this.searches.page(user.id, limit, after);
    const searches = rows.slice(0, limit);
    const last = searches.at(-1);
    return {
      searches,
      nextCursor: rows.length > limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }) : null,
    };
  }

  async get(id: string, user: AuthenticatedUser): Promise<SavedSearch> {
    const search = await this.searches.find(id);
    if (!search || search.ownerId !== user.id) {
      throw new ApiError('saved_search_not_found', `You have no saved search with id ${id}.`);
    }
    return search;
  }

  async update(
    id: string,
    input: UpdateSavedSearchDto,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<SavedSearch> {
    const search = await this.get(id, user);
    const next: SavedSearch = Object.assign(new SavedSearch(), search, {
      name: input.name ?? search.name,
      q: input.q ?? search.q,
      filters: input.filters === undefined ? search.filters : plainFilters(input.filters),
      alert: input.alert ?? search.alert,
    });
    const changed = (['name', 'q', 'filters', 'alert'] as const).filter(
      (key) => JSON.stringify(next[key]) !== JSON.stringify(search[key]),
    );
    if (changed.length === 0) return search;
    next.updatedAt = this.clock.now();
    const reseed = next.alert && changed.some((key) => key !== 'name');
    const current = reseed ? await this.currentMatches(next, user) : [];
    await this.transactions.run(async (tx) => {
      await this.searches.update(tx, id, {
        name: next.name,
        q: next.q,
        filters: next.filters,
        alert: next.alert,
        updatedAt: next.updatedAt,
      });
      if (reseed) await this.searches.replaceMatches(tx, id, current, next.updatedAt);
      else if (!next.alert) await this.searches.clearMatches(tx, id);
      await this.audit.record(tx, audit, {
        action: 'saved_search.updated',
        targetType: 'saved_search',
        targetId: id,
        changes: Object.fromEntries(changed.map((key) => [key, { from: search[key], to: next[key] }])),
      });
    });
    return next;
  }

  async remove(id: string, user: AuthenticatedUser, audit: AuditContext): Promise<void> {
    const search = await this.get(id, user);
    await this.transactions.run(async (tx) => {
      await this.searches.delete(tx, id);
      await this.audit.record(tx, audit, {
        action: 'saved_search.deleted',
        targetType: 'saved_search',
        targetId: id,
        changes: { name: { from: search.name, to: null } },
      });
    });
  }

  /** Runs the search through the document list, as its owner. */
  async run(id: string, paging: RunSavedSearchQueryDto, user: AuthenticatedUser): Promise<DocumentPage> {
    const search = await this.get(id, user);
    return this.documents.list(listQuery(search, paging), user);
  }

  /** What the search matches now (up to SEED_LIMIT): recorded so that only later matches alert. */
  private async currentMatches(search: SavedSearch, user: AuthenticatedUser): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.documents.list(listQuery(search, { limit: 100, sort: '-updatedAt', cursor }), user);
      ids.push(...page.documents.map((document) => document.id));
      cursor = page.next ? encodeDocumentCursor(page.next) : undefined;
    } while (cursor && ids.length < SEED_LIMIT);
    return ids;
  }
}

function plainFilters(filters: CreateSavedSearchDto['filters']): SavedSearchFilters {
  const plain: Record<string, string> = {};
  for (const key of ['projectId', 'documentTypeId', 'status', 'uploadedBy', 'tags'] as const) {
    const value = filters?.[key];
    // Ids as stored (lower case), so the matcher compares them with documents' as they are.
    if (value !== undefined) plain[key] = key.endsWith('Id') || key === 'uploadedBy' ? value.toLowerCase() : value;
  }
  return plain;
}
