import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiError } from '../common/errors/error-codes.js';
import { httpConfig } from '../config/configuration.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { PendingFile } from './entities/pending-file.entity.js';
import { FileStore } from './file-store.js';
import { PendingFilesRepository } from './pending-files.repository.js';

/** What a feature whose committed rows name stored files tells the collector (documents: versions). */
export interface StoredFileReferenceSource {
  /** Those of `hashes` a committed row of this feature names, read in `tx`. */
  referencedAmong(hashes: readonly string[], tx: Tx): Promise<string[]>;
  /** Every stored file a row names, with the size the row records (storage:verify). */
  referencedFiles?(): Promise<{ sha256: string; size: number }[]>;
}

/**
 * Where features register their StoredFileReferenceSource (in their onModuleInit), so storage
 * never imports them. A file is unreferenced only when every registered source says so.
 */
@Injectable()
export class StoredFileReferences {
  private readonly sources: StoredFileReferenceSource[] = [];

  register(source: StoredFileReferenceSource): void {
    this.sources.push(source);
  }

  /** Those of `hashes` that no source names, read in `tx`. */
  async unreferencedHashes(hashes: readonly string[], tx: Tx): Promise<string[]> {
    // No source registered would make every file look unreferenced: refuse rather than delete.
    if (this.sources.length === 0) throw new Error('No stored-file reference source is registered.');
    let left = [...hashes];
    for (const source of this.sources) {
      if (left.length === 0) break;
      const named = new Set(await source.referencedAmong(left, tx));
      left = left.filter((hash) => !named.has(hash));
    }
    return left;
  }

  /** Every stored file some source names with a recorded size (the first source's, if several do). */
  async referencedFiles(): Promise<{ sha256: string; size: number }[]> {
    const files = new Map<string, number>();
    for (const source of this.sources) {
      for (const { sha256, size } of (await source.referencedFiles?.()) ?? []) {
        if (!files.has(sha256)) files.set(sha256, size);
      }
    }
    return [...files].map(([sha256, size]) => ({ sha256, size }));
  }
}

/** A referenced file that is not as its rows record it (storage:verify). */
export interface FileProblem {
  sha256: string;
  problem: string;
}

/** An upload's claim on its bytes, from before its file is placed until its row commits or it fails. */
export interface FileReservation {
  readonly id: string;
  readonly sha256: string;
}

/** A pending row is stale (its upload died) once this many request deadlines have passed. */
const STALE_AFTER_REQUEST_DEADLINES = 2;

/**
 * The life cycle of stored files against the database (the rules are in FileStore's header):
 * an upload `reserve()`s its sha256 before placing the file, `settle()`s in the transaction of its
 * row, or `release()`s when it fails; `collect()` removes given files and `sweep()` every file
 * that neither a committed row nor a fresh pending row names.
 */
@Injectable()
export class StoredFiles {
  private readonly logger = new Logger(StoredFiles.name);

  constructor(
    private readonly store: FileStore,
    private readonly pending: PendingFilesRepository,
    private readonly transactions: Transactions,
    private readonly references: StoredFileReferences,
    @Inject(httpConfig.KEY) private readonly http: ConfigType<typeof httpConfig>,
  ) {}

  /** Registers (commits) an upload of `sha256`; call before the file is placed. */
  async reserve(sha256: string): Promise<FileReservation> {
    const row = Object.assign(new PendingFile(), { id: randomUUID(), sha256, createdAt: new Date() });
    await this.transactions.run((tx) => this.pending.insert(tx, row));
    return { id: row.id, sha256 };
  }

  /**
   * In the transaction that commits the row naming the file: ends the reservation. A reservation
   * a sweep found stale may have lost its file, so the row must not commit: 503, send it again.
   */
  async settle(tx: Tx, reservation: FileReservation): Promise<void> {
    if (!(await this.pending.delete(tx, reservation.id))) {
      throw new ApiError('service_unavailable', 'The upload took too long to be recorded; send it again.');
    }
  }

  /**
   * After an upload whose row did not commit: ends the reservation and removes the file unless a
   * committed row or another upload in flight names it. Never throws (the upload's own error
   * matters); what it could not do, the next sweep does.
   */
  async release(reservation: FileReservation): Promise<void> {
    try {
      await this.transactions.run((tx) => this.pending.delete(tx, reservation.id));
      await this.collect([reservation.sha256]);
    } catch (error) {
      this.logger.warn(`Releasing a failed upload's file failed; the next sweep collects it (${describe(error)})`);
    }
  }

  /**
   * Removes those of `hashes` whose files nothing names: no committed row and no fresh pending
   * row. Each is decided and unlinked inside one transaction holding the claim on its sha256 (see
   * PendingFilesRepository.claim), so no upload can reserve or commit it meanwhile. The unlink is
   * the one file-system step inside a transaction: it is idempotent, so a retried transaction
   * decides and unlinks again harmlessly. Answers how many files were removed.
   */
  async collect(hashes: Iterable<string>): Promise<number> {
    let removed = 0;
    for (const sha256 of new Set(hashes)) {
      const staleBefore = this.staleBefore();
      const gone = await this.transactions.run(async (tx) => {
        if ((await this.pending.claim(tx, sha256, staleBefore)).pending) return false;
        if ((await this.references.unreferencedHashes([sha256], tx)).length === 0) return false;
        return this.store.remove(sha256);
      });
      if (gone) removed++;
    }
    return removed;
  }

  /**
   * Every stored file that nothing names is removed, and stale pending rows with them, and the
   * temporary files of any instance left untouched too long (FileStore.cleanTemporaryFiles).
   */
  async sweep(): Promise<number> {
    await this.store.cleanTemporaryFiles();
    const staleBefore = this.staleBefore();
    await this.transactions.run((tx) => this.pending.deleteStale(tx, staleBefore));
    let removed = 0;
    let batch: string[] = [];
    for await (const sha256 of this.store.hashes()) {
      batch.push(sha256);
      if (batch.length < 500) continue;
      removed += await this.collectUnreferenced(batch);
      batch = [];
    }
    return removed + (await this.collectUnreferenced(batch));
  }

  /** collect() for those of `hashes` a first unlocked read finds unreferenced (most are referenced). */
  private async collectUnreferenced(hashes: string[]): Promise<number> {
    if (hashes.length === 0) return 0;
    const candidates = await this.transactions.run((tx) => this.references.unreferencedHashes(hashes, tx));
    return this.collect(candidates);
  }

  /** Checks every referenced file's presence, size and SHA-256; answers what is wrong. */
  async verify(): Promise<FileProblem[]> {
    const problems: FileProblem[] = [];
    for (const { sha256, size } of await this.references.referencedFiles()) {
      const storedSize = await this.store.size(sha256);
      if (storedSize === undefined) {
        problems.push({ sha256, problem: 'missing' });
        continue;
      }
      if (storedSize !== size) {
        problems.push({ sha256, problem: `${storedSize} bytes, ${size} recorded` });
        continue;
      }
      const file = await this.store.open(sha256);
      if (!file) {
        problems.push({ sha256, problem: 'missing' });
        continue;
      }
      const hash = createHash('sha256');
      for await (const chunk of file.stream) hash.update(chunk as Buffer);
      const actual = hash.digest('hex');
      if (actual !== sha256) problems.push({ sha256, problem: `content has SHA-256 ${actual}` });
    }
    return problems;
  }

  private staleBefore(): Date {
    return new Date(Date.now() - STALE_AFTER_REQUEST_DEADLINES * this.http.requestTimeoutMs);
  }
}

function describe(error: unknown): string {
  return (error as { code?: string }).code ?? (error as Error).name;
}
