import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { describeForLog } from '../common/errors/error-mapping.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { ContentVersion } from '../documents/document-files.service.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { ShareLink } from './entities/share-link.entity.js';
import { SharesRepository } from './shares.repository.js';

/** The actor of events nobody signed in for (a download through a link): no user has this id. */
export const ANONYMOUS_ACTOR = '00000000-0000-0000-0000-000000000000';

/** Downloads counted in one transaction at most. */
const MAX_BATCH = 64;

/** How long a download of a link without a limit (already being served) waits for others to share its commit. */
const RECORD_WINDOW_MS = 100;

/** One download through a link, to count and audit. */
export interface ShareDownload {
  link: ShareLink;
  content: ContentVersion;
  audit: AuditContext;
  now: Date;
}

interface Waiting extends ShareDownload {
  settle(counted: boolean | Error): void;
}

/**
 * Counts downloads through share links: a transaction counts each (against maxDownloads), records
 * its audit event (share.accessed) and tells the sharer once per link (outbox). Downloads share
 * commits (group commit), so the audit chain's head is locked once per batch: a limited link's
 * download waits for the next turn of the event loop (count); any other is served meanwhile and
 * joins a commit within RECORD_WINDOW_MS (record). On SQLite, whose statements run synchronously,
 * a batch forms only by waiting.
 */
@Injectable()
export class ShareDownloads implements OnModuleDestroy {
  private readonly logger = new Logger('ShareDownloads');
  private waiting: Waiting[] = [];
  private committing: Promise<void> | undefined;
  private nextCommit: { urgent: boolean; cancel(): void } | undefined;

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
        shareId: download.link.id,
        err: describeForLog(error),
      }),
    );
  }

  /** Resolves once every download handed over so far is committed (or failed). */
  async settled(): Promise<void> {
    if (this.nextCommit) this.commitNow();
    while (this.committing) await this.committing;
  }

  /** A clean stop records every download already served (before the data source closes). */
  onModuleDestroy(): Promise<void> {
    return this.settled();
  }

  private enqueue(download: ShareDownload, urgent: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        ...download,
        settle: (counted) => (counted instanceof Error ? reject(counted) : resolve(counted)),
      });
      // A running commit loop takes it; else the next commit is scheduled (sooner, if this one waits).
      if (this.committing || (this.nextCommit && (this.nextCommit.urgent || !urgent))) return;
      this.nextCommit?.cancel();
      if (urgent) {
        const immediate = setImmediate(() => this.commitNow());
        this.nextCommit = { urgent, cancel: () => clearImmediate(immediate) };
      } else {
        const timer = setTimeout(() => this.commitNow(), RECORD_WINDOW_MS);
        this.nextCommit = { urgent, cancel: () => clearTimeout(timer) };
      }
    });
  }

  private commitNow(): void {
    this.nextCommit?.cancel();
    this.nextCommit = undefined;
    this.committing ??= this.commitWaiting();
  }

  private async commitWaiting(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const counted = await this.transactions.run((tx) => this.countAll(tx, batch));
          batch.forEach((download, index) => download.settle(counted[index]));
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const download of batch) download.settle(failure);
        }
      }
    } finally {
      this.committing = undefined;
    }
  }

  /**
   * Counts the batch: a limited link's downloads one at a time (each against maxDownloads), an
   * unlimited link's together (one UPDATE); each counted one is audited, and each link's counted
   * ones are told in one outbox event (payload.downloads).
   */
  private async countAll(tx: Tx, batch: ShareDownload[]): Promise<boolean[]> {
    const counted = batch.map(() => false);
    const unlimited = new Map<string, number[]>();
    for (const [index, { link, now }] of batch.entries()) {
      if (link.maxDownloads !== null) counted[index] = await this.shares.countDownloads(tx, link.id, 1, now);
      else unlimited.set(link.id, [...(unlimited.get(link.id) ?? []), index]);
    }
    for (const [linkId, indexes] of unlimited) {
      const allowed = await this.shares.countDownloads(tx, linkId, indexes.length, batch[indexes[0]].now);
      for (const index of indexes) counted[index] = allowed;
    }
    const done = batch.filter((_, index) => counted[index]);
    for (const { link, audit } of done) {
      await this.audit.record(tx, audit, {
        action: 'share.accessed',
        targetType: 'share',
        targetId: link.id,
        changes: { downloads: { from: link.downloads, to: link.downloads + 1 } },
      });
    }
    // One event per link and batch, with how many downloads it stands for: a burst is told once.
    const perLink = new Map<string, { download: ShareDownload; downloads: number }>();
    for (const download of done) {
      const told = perLink.get(download.link.id);
      if (told) told.downloads++;
      else perLink.set(download.link.id, { download, downloads: 1 });
    }
    await this.outbox.appendAll(
      tx,
      [...perLink.values()].map(({ download: { link, content }, downloads }) => ({
        type: 'share.accessed',
        actorId: ANONYMOUS_ACTOR,
        projectId: content.document.projectId,
        documentId: content.document.id,
        subjectUserId: link.createdBy,
        payload: { title: content.document.title, shareId: link.id, downloads },
      })),
    );
    return counted;
  }
}
