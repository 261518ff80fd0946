import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { describeForLog } from '../common/errors/error-mapping.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { Document } from '../documents/entities/document.entity.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { linkServes } from './entities/share-link.entity.js';
import { SharesRepository } from './shares.repository.js';

/** The actor of events nobody signed in for (a download through a link): no user has this id. */
export const ANONYMOUS_ACTOR = '00000000-0000-0000-0000-000000000000';

/** Downloads counted in one transaction at most (each batch takes its own transaction, chain-head lock and event). */
export const MAX_BATCH = 256;

/** How long a download of a link without a limit (already being served) waits for others to share its commit. */
export const RECORD_WINDOW_MS = 100;

/**
 * One download through a link, to count and audit: only what its commit writes, copied out of the
 * request's entities, which would otherwise live through the window into the old generation of the heap.
 */
export interface ShareDownload {
  linkId: string;
  /** The link's creator, told of the download (share.accessed). */
  sharerId: string;
  document: Pick<Document, 'id' | 'projectId' | 'title'>;
  audit: AuditContext;
  at: Date;
}

interface Waiting extends ShareDownload {
  /** A limited link's download, waiting for its count before the file is sent. */
  urgent: boolean;
  settle(counted: boolean | Error): void;
}

/**
 * Counts downloads through share links: a transaction counts each (against maxDownloads), records
 * its audit event (share.accessed) and tells the sharer once per link (outbox). Downloads share
 * commits (group commit), so the audit chain's head is locked once per batch: a limited link's
 * download waits for the next turn of the event loop (count); any other is served meanwhile and
 * joins a commit within RECORD_WINDOW_MS (record), also while another commit runs. On SQLite, whose
 * statements run synchronously, a batch forms only by waiting.
 */
@Injectable()
export class ShareDownloads implements OnModuleDestroy {
  private readonly logger = new Logger('ShareDownloads');
  private waiting: Waiting[] = [];
  private committing: Promise<void> | undefined;
  private nextCommit: { soon: boolean; cancel(): void } | undefined;

  constructor(
    private readonly shares: SharesRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly outbox: OutboxRepository,
  ) {}

  /** True once the download is counted and audited; false when the link can serve no more. */
  count(download: ShareDownload): Promise<boolean> {
    return this.enqueue(download, true);
  }

  /** Counts and audits a download of a link without a limit in a batch to come, while the file is sent. */
  record(download: ShareDownload): void {
    this.enqueue(download, false).catch((error: unknown) =>
      this.logger.error({
        msg: 'a share download was not recorded',
        shareId: download.linkId,
        err: describeForLog(error),
      }),
    );
  }

  /** Resolves once every download handed over so far is committed (or failed). */
  async settled(): Promise<void> {
    while (this.nextCommit || this.committing) {
      if (this.nextCommit) this.commitNow();
      await this.committing;
    }
  }

  /** A clean stop records every download already served (before the data source closes). */
  onModuleDestroy(): Promise<void> {
    return this.settled();
  }

  private enqueue(download: ShareDownload, urgent: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        ...download,
        urgent,
        settle: (counted) => (counted instanceof Error ? reject(counted) : resolve(counted)),
      });
      this.schedule(urgent);
    });
  }

  /** The next commit: at the next turn if a download waits for it or a batch is full, else within the window. */
  private schedule(urgent: boolean): void {
    // A running commit schedules what is left when it ends.
    if (this.committing || this.waiting.length === 0) return;
    const soon = urgent || this.waiting.length >= MAX_BATCH;
    if (this.nextCommit && (this.nextCommit.soon || !soon)) return;
    this.nextCommit?.cancel();
    if (soon) {
      const immediate = setImmediate(() => this.commitNow());
      this.nextCommit = { soon, cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(() => this.commitNow(), RECORD_WINDOW_MS);
      this.nextCommit = { soon, cancel: () => clearTimeout(timer) };
    }
  }

  private commitNow(): void {
    this.nextCommit?.cancel();
    this.nextCommit = undefined;
    this.committing ??= this.commitWaiting();
  }

  private async commitWaiting(): Promise<void> {
    try {
      do {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const counted = await this.transactions.run((tx) => this.countAll(tx, batch));
          batch.forEach((download, index) => download.settle(counted[index]));
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const download of batch) download.settle(failure);
        }
      } while (this.waiting.length >= MAX_BATCH || this.waiting.some((download) => download.urgent));
    } finally {
      this.committing = undefined;
      this.schedule(false);
    }
  }

  /**
   * Counts the batch against its links as they are now (rows locked): each download the link can
   * still serve is audited with the count it made, each link's count goes up by one UPDATE, and
   * each link's counted downloads are told in one outbox event (payload.downloads).
   */
  private async countAll(tx: Tx, batch: ShareDownload[]): Promise<boolean[]> {
    const links = await this.shares.lockForCount(tx, [...new Set(batch.map(({ linkId }) => linkId))]);
    const counted = batch.map(() => false);
    // Per link: its first counted download (for the event) and how many were counted.
    const perLink = new Map<string, { download: ShareDownload; downloads: number }>();
    for (const [index, download] of batch.entries()) {
      const current = links.get(download.linkId);
      if (!current || !linkServes(current, download.at)) continue;
      counted[index] = true;
      await this.audit.record(tx, download.audit, {
        action: 'share.accessed',
        targetType: 'share',
        targetId: current.id,
        changes: { downloads: { from: current.downloads, to: current.downloads + 1 } },
      });
      current.downloads++;
      const told = perLink.get(current.id);
      if (told) told.downloads++;
      else perLink.set(current.id, { download, downloads: 1 });
    }
    for (const [linkId, { downloads }] of perLink) await this.shares.addDownloads(tx, linkId, downloads);
    // One event per link and batch, with how many downloads it stands for: a burst is told once.
    await this.outbox.appendAll(
      tx,
      [...perLink.values()].map(({ download: { linkId, sharerId, document }, downloads }) => ({
        type: 'share.accessed',
        actorId: ANONYMOUS_ACTOR,
        projectId: document.projectId,
        documentId: document.id,
        subjectUserId: sharerId,
        payload: { title: document.title, shareId: linkId, downloads },
      })),
    );
    return counted;
  }
}
