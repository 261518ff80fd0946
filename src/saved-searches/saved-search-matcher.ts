import { setImmediate } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/time/clock.js';
import { Poller } from '../common/time/poller.js';
import { Transactions } from '../database/transactions.js';
import { DocumentParticipants } from '../documents/document-participants.service.js';
import { DocumentsService, searchWords } from '../documents/documents.service.js';
import { changesSearchMatches } from '../events/domain-event.js';
import type { OutboxEvent } from '../events/entities/outbox-event.entity.js';
import { OUTBOX_NUDGE_DELAY_MS, onOutboxWrite } from '../events/outbox-signal.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { SavedSearch } from './entities/saved-search.entity.js';
import { SavedSearchIndex, textWords, type DocumentFacts, type IndexedSearch } from './saved-search-index.js';
import { SavedSearchesRepository } from './saved-searches.repository.js';

const BATCH_SIZE = 100;
/** Distinct q checked per statement; the matcher yields between them. */
const Q_CHUNK = 20;
const POLL_MS = 250;

/** Saved-search alerts, after commit, from the outbox (docs/notifications.md, "How matching works"). */
@Injectable()
export class SavedSearchMatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SavedSearchMatcher');
  private readonly poller = new Poller(POLL_MS, () => this.matchBatch(), this.logger);
  private stopListening: (() => void) | undefined;
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
    this.stopListening = onOutboxWrite(() => this.poller.wake(OUTBOX_NUDGE_DELAY_MS));
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
        if (!event.documentId || !changesSearchMatches(event.type)) {
          done.push(event.id);
          continue;
        }
        await setImmediate();
        if (!(await this.matchEvent(event, event.documentId, index))) done.push(event.id);
      }
    }
    if (done.length) {
      const at = this.clock.now();
      await this.transactions.run((tx) => this.searches.markMatched(tx, done, at), { readCommitted: true });
    }
    return events.length === BATCH_SIZE;
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
    await setImmediate();
    const now = this.clock.now();
    await this.transactions.run(
      async (tx) => {
        if (!(await this.searches.claimEvent(tx, event.id, now))) return;
        // Changed since it was read (its own later event will match it): nothing recorded from a mixed read.
        if (document && !(await this.searches.unchanged(tx, documentId, document.rowVersion))) return;
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

  /** The candidates the list would show their owners: active readers of the document, q searched as the list does. */
  private async confirmed(candidates: IndexedSearch[], document: DocumentFacts): Promise<IndexedSearch[]> {
    if (candidates.length === 0) return [];
    const active = await this.searches.activeAmong([...new Set(candidates.map((search) => search.ownerId))]);
    await setImmediate();
    const readers = new Set(await this.participants.readersAmong(document.id, active));
    const visible = candidates.filter((search) => readers.has(search.ownerId));
    const qs = [...new Set(visible.flatMap((search) => (search.q ? [search.q] : [])))];
    const matched = new Set<string>();
    for (let start = 0; start < qs.length; start += Q_CHUNK) {
      await setImmediate();
      const chunk = qs.slice(start, start + Q_CHUNK);
      const answers = await this.documents.textMatches(document.id, chunk);
      for (const [i, q] of chunk.entries()) if (answers[i]) matched.add(q);
    }
    return visible.filter((search) => !search.q || matched.has(search.q));
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
