import { Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import type { Tx } from '../database/transactions.js';
import { PendingFile } from './entities/pending-file.entity.js';

/** Every statement on pending_files (the uploads in flight; see StoredFiles). */
@Injectable()
export class PendingFilesRepository {
  private readonly locks: boolean;

  constructor(dataSource: DataSource) {
    this.locks = dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
  }

  async insert(tx: Tx, row: PendingFile): Promise<void> {
    await tx.insert(PendingFile, row);
  }

  /** Deletes one pending row; answers whether it was still there. */
  async delete(tx: Tx, id: string): Promise<boolean> {
    const { affected } = await tx.delete(PendingFile, { id });
    return (affected ?? 0) > 0;
  }

  /**
   * Claims `sha256` for the collector in `tx`: drops its stale pending rows and answers whether a
   * fresh one remains. The DELETE comes first on purpose: on SQLite it takes the database's write
   * lock, on MySQL/MariaDB (REPEATABLE READ) it locks every index entry of `sha256` and the gap
   * where a new one would go. Until `tx` ends, no upload can register `sha256`, and an upload
   * committing its row (which deletes its pending row) has either finished or waits.
   */
  async claim(tx: Tx, sha256: string, staleBefore: Date): Promise<{ pending: boolean }> {
    await tx
      .createQueryBuilder()
      .delete()
      .from(PendingFile)
      .where('sha256 = :sha256 AND createdAt < :staleBefore', { sha256, staleBefore })
      .execute();
    const query = tx.createQueryBuilder(PendingFile, 'p').where('p.sha256 = :sha256', { sha256 });
    if (this.locks) query.setLock('pessimistic_write');
    return { pending: (await query.getCount()) > 0 };
  }

  /** Deletes the pending rows older than `staleBefore` (uploads that died); answers how many. */
  async deleteStale(tx: Tx, staleBefore: Date): Promise<number> {
    const { affected } = await tx.delete(PendingFile, { createdAt: LessThan(staleBefore) });
    return affected ?? 0;
  }
}
