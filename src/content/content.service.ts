import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Clock } from '../common/time/clock.js';
import { contentConfig } from '../config/configuration.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../documents/documents.service.js';
import { FileStore } from '../storage/file-store.js';
import { StoredFiles, type FileReservation } from '../storage/stored-files.js';
import { JobRunner } from '../jobs/job-runner.js';
import {
  CONTENT_EXTRACTION_JOB,
  contentJobSubject,
  type ContentExtractionPayload,
} from '../jobs/content-extraction-job.js';
import { ContentReindex } from './content-reindex.js';
import { ContentRepository, type ReindexFilter, type VersionKey } from './content.repository.js';
import { DocumentContent, type ContentStatus } from './entities/document-content.entity.js';
import { DocumentPreview, type PreviewSize } from './entities/document-preview.entity.js';
import { extractContent, unreadFormat } from './extractors/extract.js';
import type { ContentLimits, Extraction } from './extractors/extraction.js';

/** A version's extraction as document answers show it. */
export interface ContentState {
  status: ContentStatus;
  pages: number | null;
  characters: number | null;
  extractedAt: Date | null;
  error: string | null;
}

interface PlacedPreview {
  size: PreviewSize;
  sha256: string;
  bytes: number;
  reservation: FileReservation;
}

const PENDING: ContentState = { status: 'pending', pages: null, characters: null, extractedAt: null, error: null };

/** Text extraction of document versions: running it, its states, the texts, re-indexing. */
@Injectable()
export class ContentService {
  private readonly logger = new Logger('Content');

  constructor(
    private readonly contents: ContentRepository,
    private readonly transactions: Transactions,
    private readonly documents: DocumentsService,
    private readonly store: FileStore,
    private readonly storedFiles: StoredFiles,
    private readonly runner: JobRunner,
    private readonly reindexer: ContentReindex,
    private readonly clock: Clock,
    @Inject(contentConfig.KEY) private readonly config: ConfigType<typeof contentConfig>,
  ) {}

  /**
   * The states of these versions, by "documentId:version" (pending when unknown), and with
   * `withTexts` the indexed texts (for a search's snippets; '' for the others).
   */
  async states(
    keys: readonly VersionKey[],
    withTexts = false,
  ): Promise<{ states: Map<string, ContentState>; texts: Map<string, string> }> {
    const rows = await this.contents.states(keys, withTexts);
    const byKey = new Map(rows.map((content) => [contentJobSubject(content.documentId, content.version), content]));
    const states = new Map<string, ContentState>();
    const texts = new Map<string, string>();
    for (const key of keys) {
      const subject = contentJobSubject(key.documentId, key.version);
      const content = byKey.get(subject);
      states.set(subject, content ? stateOf(content) : PENDING);
      if (withTexts) texts.set(subject, content?.text ?? '');
    }
    return { states, texts };
  }

  /** A version's extracted text (readers only; 404 content_not_available until it is indexed). */
  async text(documentId: string, user: AuthenticatedUser, version?: number): Promise<string> {
    const { document } = await this.documents.readableAccess(documentId, user);
    const number = version ?? document.currentVersion;
    if (number > document.currentVersion) {
      throw new ApiError('version_not_found', `Document ${documentId} has no version ${number}.`);
    }
    const content = await this.contents.findWithText(documentId, number);
    if (content?.status !== 'indexed') {
      throw new ApiError(
        'content_not_available',
        `No text of version ${number} of document ${documentId} is available (${content?.status ?? 'pending'}).`,
      );
    }
    return content.text ?? '';
  }

  counts(): Promise<Record<ContentStatus, number>> {
    return this.contents.counts();
  }

  /** Re-queues the current versions `filter` takes (ContentReindex) and wakes this instance's workers. */
  async reindex(filter: ReindexFilter): Promise<number> {
    const queued = await this.reindexer.run(filter);
    this.runner.wake(CONTENT_EXTRACTION_JOB);
    return queued;
  }

  /** The bounds of an extraction, with OCR on or off as the worker found it. */
  limits(ocrEnabled: boolean): ContentLimits {
    return {
      maxChars: this.config.maxChars,
      maxPages: this.config.maxPages,
      timeoutMs: this.config.timeoutMs,
      maxUncompressedBytes: this.config.maxUncompressedBytes,
      ocr: { enabled: ocrEnabled, languages: this.config.ocrLanguages },
    };
  }

  /**
   * One job: reads the version's stored file and records what it gave. A file that cannot be read
   * records its version failed (the job is done); a missing stored file or a database failure
   * throws, so the job is tried again (JobRunner's back-off); the last attempt records failed.
   */
  async extract(payload: ContentExtractionPayload, limits: ContentLimits, lastAttempt: boolean): Promise<void> {
    const { documentId, version } = payload;
    const found = await this.contents.version(documentId, version);
    // Purged meanwhile: nothing to read.
    if (!found) return;
    const sha256 = found.version.sha256;
    if (sha256 === null) {
      await this.record(documentId, version, {
        status: 'unsupported',
        error: 'The version has no stored file.',
        pages: null,
      });
      return;
    }
    const unread = unreadFormat(found.version.mimeType, limits);
    if (unread) {
      await this.record(documentId, version, unread);
      return;
    }
    await this.transactions.run((tx) =>
      this.contents.record(tx, row(documentId, version, 'processing', { pages: null, characters: null, error: null })),
    );
    let extraction: Extraction & { previews?: Record<PreviewSize, Buffer> };
    try {
      const file = await this.store.open(sha256);
      if (!file) throw new Error(`stored file ${sha256} is missing`);
      try {
        extraction = await extractContent(
          { mimeType: found.version.mimeType, size: file.size, stream: () => file.stream },
          limits,
        );
      } finally {
        file.stream.destroy();
      }
    } catch (error) {
      if (!lastAttempt) throw error;
      this.logger.error(`extracting ${documentId} version ${version} failed: ${(error as Error).message}`);
      extraction = { status: 'failed', error: 'The stored file could not be read.', pages: null };
    }
    const previews = extraction.previews ? await this.placePreviews(extraction.previews) : [];
    try {
      await this.record(documentId, version, extraction, previews);
    } catch (error) {
      for (const { reservation } of previews) await this.storedFiles.release(reservation);
      throw error;
    }
  }

  /**
   * A version's preview (readers only): the stored PNG's sha256 and bytes. 404
   * preview_not_available while it is being made or for a format without one.
   */
  async preview(documentId: string, user: AuthenticatedUser, size: PreviewSize, version?: number) {
    const { document } = await this.documents.readableAccess(documentId, user);
    const number = version ?? document.currentVersion;
    if (number > document.currentVersion) {
      throw new ApiError('version_not_found', `Document ${documentId} has no version ${number}.`);
    }
    const preview = await this.contents.findPreview(documentId, number, size);
    const file = preview && (await this.store.open(preview.sha256));
    if (!preview || !file) {
      throw new ApiError(
        'preview_not_available',
        `No preview of version ${number} of document ${documentId} is available (pending, or its format has none).`,
      );
    }
    return { sha256: preview.sha256, file };
  }

  /** Places the preview PNGs in the file store, each reserved until its row commits (StoredFiles). */
  private async placePreviews(previews: Record<PreviewSize, Buffer>): Promise<PlacedPreview[]> {
    const placed: PlacedPreview[] = [];
    try {
      for (const [size, png] of Object.entries(previews) as [PreviewSize, Buffer][]) {
        const sha256 = createHash('sha256').update(png).digest('hex');
        const reservation = await this.storedFiles.reserve(sha256);
        placed.push({ size, sha256, bytes: png.length, reservation });
        const write = await this.store.begin();
        try {
          await write.write(Readable.from([png]));
          await write.commit();
        } finally {
          await write.abort();
        }
      }
      return placed;
    } catch (error) {
      // A preview is a convenience: without room for it the version is still read.
      this.logger.warn(`storing a preview failed: ${(error as Error).message}`);
      for (const { reservation } of placed) await this.storedFiles.release(reservation);
      return [];
    }
  }

  private record(
    documentId: string,
    version: number,
    extraction: Extraction,
    previews: PlacedPreview[] = [],
  ): Promise<void> {
    const now = this.clock.now();
    const content =
      extraction.status === 'indexed'
        ? Object.assign(
            row(documentId, version, 'indexed', {
              pages: extraction.pages,
              characters: Array.from(extraction.text).length,
              error: null,
            }),
            { extractedAt: now, text: extraction.text },
          )
        : Object.assign(
            row(documentId, version, extraction.status, {
              pages: extraction.pages,
              characters: null,
              error: extraction.error.slice(0, 500),
            }),
            {
              extractedAt: now,
            },
          );
    return this.transactions.run(async (tx) => {
      await this.contents.record(tx, content);
      for (const preview of previews) {
        await this.storedFiles.settle(tx, preview.reservation);
        await this.contents.savePreview(
          tx,
          Object.assign(new DocumentPreview(), {
            documentId,
            version,
            size: preview.size,
            sha256: preview.sha256,
            bytes: preview.bytes,
          }),
        );
      }
    });
  }
}

function row(
  documentId: string,
  version: number,
  status: ContentStatus,
  fields: Pick<DocumentContent, 'pages' | 'characters' | 'error'>,
): DocumentContent {
  return Object.assign(new DocumentContent(), {
    documentId,
    version,
    status,
    extractedAt: null,
    text: null,
    ...fields,
  });
}

function stateOf(content: DocumentContent): ContentState {
  return {
    status: content.status,
    pages: content.pages,
    characters: content.characters,
    extractedAt: content.extractedAt,
    error: content.error,
  };
}
