import { Injectable } from '@nestjs/common';
import { Clock } from '../common/time/clock.js';
import { Transactions } from '../database/transactions.js';
import { ContentRepository, type ReindexFilter } from './content.repository.js';

const REINDEX_BATCH = 500;

/** Re-queues current versions for extraction, in batches by document id (the API's and the CLI's). */
@Injectable()
export class ContentReindex {
  constructor(
    private readonly contents: ContentRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * Queues the current versions `filter` takes, batch after batch from after `afterId`; `progress`
   * hears each committed batch (how many so far, the last document id: where a rerun resumes).
   * Answers how many were queued.
   */
  async run(
    filter: ReindexFilter,
    afterId?: string,
    progress?: (queued: number, lastId: string) => void | Promise<void>,
  ): Promise<number> {
    let total = 0;
    let position = afterId;
    for (;;) {
      const now = this.clock.now();
      const batch = await this.transactions.run((tx) =>
        this.contents.reindexBatch(tx, filter, position, REINDEX_BATCH, now),
      );
      total += batch.queued;
      if (batch.lastId === undefined) return total;
      position = batch.lastId;
      await progress?.(total, position);
    }
  }
}
