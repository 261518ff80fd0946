import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { ContentVersion } from '../documents/document-files.service.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { ShareLink } from './entities/share-link.entity.js';
import { SharesRepository } from './shares.repository.js';

/** The actor of events nobody signed in for (a download through a link): no user has this id. */
export const ANONYMOUS_ACTOR = '00000000-0000-0000-0000-000000000000';

/** Downloads counted in one transaction at most. */
const MAX_BATCH = 64;

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
 * Counts downloads through share links. Each download waits for the commit of a transaction that
 * counts it against maxDownloads and records its audit event (share.accessed) and outbox event;
 * downloads that arrive while such a transaction is committing share the next one (group commit),
 * so concurrent downloads lock the audit chain's head once per transaction, not once each.
 */
@Injectable()
export class ShareDownloads {
  private waiting: Waiting[] = [];
  private committing = false;

  constructor(
    private readonly shares: SharesRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly outbox: OutboxRepository,
  ) {}

  /** True once the download is counted and audited; false when the link can serve no more. */
  count(download: ShareDownload): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        ...download,
        settle: (counted) => (counted instanceof Error ? reject(counted) : resolve(counted)),
      });
      if (!this.committing) void this.commitWaiting();
    });
  }

  private async commitWaiting(): Promise<void> {
    this.committing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const counted = await this.transactions.run(async (tx) => {
            const answers: boolean[] = [];
            for (const download of batch) answers.push(await this.countOne(tx, download));
            return answers;
          });
          batch.forEach((download, index) => download.settle(counted[index]));
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const download of batch) download.settle(failure);
        }
      }
    } finally {
      this.committing = false;
    }
  }

  private async countOne(tx: Tx, { link, content, audit, now }: ShareDownload): Promise<boolean> {
    if (!(await this.shares.countDownload(tx, link.id, now))) return false;
    await this.audit.record(tx, audit, {
      action: 'share.accessed',
      targetType: 'share',
      targetId: link.id,
      changes: { downloads: { from: link.downloads, to: link.downloads + 1 } },
    });
    await this.outbox.append(tx, {
      type: 'share.accessed',
      actorId: ANONYMOUS_ACTOR,
      projectId: content.document.projectId,
      documentId: content.document.id,
      subjectUserId: link.createdBy,
      payload: { title: content.document.title, shareId: link.id },
    });
    return true;
  }
}
