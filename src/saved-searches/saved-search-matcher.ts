import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/time/clock.js';
import { Poller } from '../common/time/poller.js';
import { Transactions } from '../database/transactions.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import { DocumentsService, searchWords } from '../documents/documents.service.js';
import type { DomainEventType } from '../events/domain-event.js';
import type { OutboxEvent } from '../events/entities/outbox-event.entity.js';
import { onOutboxWrite } from '../events/outbox-signal.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { SavedSearch } from './entities/saved-search.entity.js';
import { SavedSearchIndex, textWords, type DocumentFacts, type IndexedSearch } from './saved-search-index.js';
import { SavedSearchesRepository } from './saved-searches.repository.js';
import { listQuery } from './saved-searches.service.js';

const BATCH_SIZE = 100;
const POLL_MS = 250;
const NUDGE_DELAY_MS = 15;
const NUDGE_RETRY_MS = 25;
const NUDGE_FOLLOW_UP_MS = 1_000;

/** The events after which a document may match a search it did not (or stop matching one). */
const DOCUMENT_CHANGES = new Set<DomainEventType>([
  'document.created',
  'document.updated',
  'document.version_added',
  'document.status_changed',
  'document.deleted',
  'document.restored',
]);

/** Saved-search alerts, after commit, from the outbox (docs/notifications.md, "How matching works"). */
@Injectable()
export class SavedSearchMatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SavedSearchMatcher');
  private readonly poller = new Poller(POLL_MS, () => this.matchBatch(), this.logger);
  private stopListening: (() => void) | undefined;
  private lastNudge = -Infinity;
  private index: { signature: string; index: SavedSearchIndex } | undefined;

  constructor(
    private readonly searches: SavedSearchesRepository,
    private readonly documents: DocumentsService,
    private readonly participants: DocumentParticipants,
    private readonly outbox: OutboxRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.stopListening = onOutboxWrite(() => {
      this.lastNudge = performance.now();
      this.poller.wake(NUDGE_DELAY_MS);
    });
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopListening?.();
    await this.poller.stop();
  }

  async matchBatch(): Promise<boolean> {
    const events = await this.searches.pendingEvents(BATCH_SIZE);
    const done: string[] = [];
    if (events.length) {
      const index = await this.currentIndex();
      for (const event of events) {
        if (!event.documentId || !DOCUMENT_CHANGES.has(event.type)) {
          done.push(event.id);
          continue;
        }
        if (!(await this.matchEvent(event, event.documentId, index))) done.push(event.id);
      }
    }
    if (done.length) {
      const at = this.clock.now();
      await this.transactions.run((tx) => this.searches.markMatched(tx, done, at), { readCommitted: true });
    }
    const full = events.length === BATCH_SIZE;
    if (!full && performance.now() - this.lastNudge < NUDGE_FOLLOW_UP_MS) this.poller.wake(NUDGE_RETRY_MS);
    return full;
  }

  /** Answers false when there was nothing to write (the event is then marked with the others). */
  private async matchEvent(event: OutboxEvent, documentId: string, index: SavedSearchIndex): Promise<boolean> {
    const [document, stored] = await Promise.all([
      this.searches.documentFacts(documentId),
      this.searches.matchesOf(documentId),
    ]);
    const matching = document && !document.deletedAt ? await this.confirmed(index.candidates(document), document) : [];
    const matchingIds = new Set(matching.map((search) => search.id));
    const added = matching.filter((search) => !stored.includes(search.id));
    const removed = stored.filter((id) => !matchingIds.has(id));
    if (added.length === 0 && removed.length === 0) return false;
    const now = this.clock.now();
    await this.transactions.run(
      async (tx) => {
        if (!(await this.searches.claimEvent(tx, event.id, now))) return;
        await this.searches.removeMatches(tx, documentId, removed);
        for (const search of added) {
          if (!(await this.searches.addMatch(tx, search.id, documentId, now))) continue;
          await this.outbox.append(
            tx,
            {
              type: 'search.matched',
              actorId: event.actorId,
              projectId: document!.projectId,
              documentId,
              subjectUserId: search.ownerId,
              payload: { savedSearchId: search.id, searchName: search.name, title: document!.title },
            },
            now,
          );
        }
      },
      { readCommitted: true },
    );
    return true;
  }

  /** The candidates the document list itself confirms for their owners (active ones only). */
  private async confirmed(candidates: IndexedSearch[], document: DocumentFacts): Promise<IndexedSearch[]> {
    if (candidates.length === 0) return [];
    const owners = await this.searches.activeUsers([...new Set(candidates.map((search) => search.ownerId))]);
    const plain = candidates.filter((search) => !search.q && owners.has(search.ownerId));
    const readers = new Set(
      plain.length ? await this.participants.readersAmong(document.id, [...new Set(plain.map((s) => s.ownerId))]) : [],
    );
    const found = plain.filter((search) => readers.has(search.ownerId));
    for (const search of candidates) {
      const owner = owners.get(search.ownerId);
      if (!search.q || !owner) continue;
      // The list as the owner sees it, narrowed to this document's instant: q as the database searches it.
      const at = document.updatedAt.toISOString();
      const page = await this.documents.list(
        listQuery(search, {
          projectId: document.projectId,
          updatedFrom: at,
          updatedTo: at,
          limit: 100,
          sort: '-updatedAt',
        }),
        owner,
      );
      if (page.documents.some((row) => row.id === document.id)) found.push(search);
    }
    return found;
  }

  /** The index of alerting searches, rebuilt when any saved search changed (here or on another instance). */
  private async currentIndex(): Promise<SavedSearchIndex> {
    const signature = await this.searches.signature();
    if (this.index?.signature !== signature) {
      this.index = { signature, index: buildIndex(await this.searches.alerting()) };
    }
    return this.index.index;
  }
}

export function buildIndex(searches: SavedSearch[]): SavedSearchIndex {
  return new SavedSearchIndex(
    searches.map((search) => ({
      id: search.id,
      ownerId: search.ownerId,
      name: search.name,
      q: search.q,
      filters: search.filters,
      words: search.q ? searchWords(search.q).flatMap((word) => textWords(word)) : [],
      tags: (search.filters.tags ?? '')
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag.length > 0),
    })),
  );
}
