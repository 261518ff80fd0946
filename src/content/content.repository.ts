import { Injectable } from '@nestjs/common';
import { DataSource, In, type Repository } from 'typeorm';
import { hydrateRow } from '../database/raw-rows.js';
import type { Tx } from '../database/transactions.js';
import { DocumentVersion } from '../documents/entities/document-version.entity.js';
import { Document } from '../documents/entities/document.entity.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import { CONTENT_EXTRACTION_JOB, contentJobSubject } from '../jobs/content-extraction-job.js';
import { DocumentContent, type ContentStatus } from './entities/document-content.entity.js';
import { DocumentPreview, type PreviewSize } from './entities/document-preview.entity.js';

/** A document's version, as a content state or a text is asked for. */
export interface VersionKey {
  documentId: string;
  version: number;
}

/** Which documents a re-index takes. */
export interface ReindexFilter {
  status: 'failed' | 'all';
  documentTypeId?: string;
  projectId?: string;
}

/**
 * document_contents and the search index's content column (document_search.content on MariaDB,
 * documents_fts.content on SQLite: see migration ContentExtraction).
 */
@Injectable()
export class ContentRepository {
  private readonly contents: Repository<DocumentContent>;
  private readonly sqlite: boolean;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobsRepository,
  ) {
    this.contents = dataSource.getRepository(DocumentContent);
    this.sqlite = dataSource.options.type === 'better-sqlite3';
  }

  /** The version's row and its document's current version and trash mark; null when either is gone. */
  async version(
    documentId: string,
    version: number,
  ): Promise<{ version: DocumentVersion; currentVersion: number } | null> {
    const document = await this.dataSource
      .getRepository(Document)
      .findOne({ select: { id: true, currentVersion: true }, where: { id: documentId } });
    if (!document) return null;
    const found = await this.dataSource.getRepository(DocumentVersion).findOneBy({ documentId, version });
    return found ? { version: found, currentVersion: document.currentVersion } : null;
  }

  /**
   * The rows of these versions (a version without one is pending), with the text of the indexed
   * ones when `withText` (a search's snippets), in one statement: a builder's where-array over a
   * page of keys cost more than the statement itself (bench/README.md, Content).
   */
  async states(keys: readonly VersionKey[], withText = false): Promise<DocumentContent[]> {
    if (keys.length === 0) return [];
    const text = withText ? ", CASE WHEN c.status = 'indexed' THEN c.text END AS text" : '';
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT c.documentId, c.version, c.status, c.pages, c.characters, c.extractedAt, c.error${text} ` +
        `FROM document_contents c WHERE ${keys.map(() => '(c.documentId = ? AND c.version = ?)').join(' OR ')}`,
      keys.flatMap((key) => [key.documentId, key.version]),
    );
    return rows.map((row) => hydrateRow(this.contents, row));
  }

  /** One version's row with its text. */
  findWithText(documentId: string, version: number): Promise<DocumentContent | null> {
    return this.contents.findOne({
      select: {
        documentId: true,
        version: true,
        status: true,
        pages: true,
        characters: true,
        extractedAt: true,
        error: true,
        text: true,
      },
      where: { documentId, version },
    });
  }

  /** Records a version's state (and text); the current version's text replaces the one in the search index. */
  async record(tx: Tx, row: DocumentContent): Promise<void> {
    await tx.getRepository(DocumentContent).upsert(row, ['documentId', 'version']);
    const document = await tx
      .getRepository(Document)
      .findOne({ select: { id: true, currentVersion: true }, where: { id: row.documentId } });
    if (document?.currentVersion !== row.version || row.status === 'processing') return;
    const text = row.status === 'indexed' ? (row.text ?? '') : '';
    if (this.sqlite) {
      await tx.query('UPDATE documents_fts SET content = ? WHERE rowid = (SELECT rowid FROM documents WHERE id = ?)', [
        text,
        row.documentId,
      ]);
    } else {
      await tx.query('UPDATE document_search SET content = ? WHERE documentId = ?', [text, row.documentId]);
    }
  }

  /** How many live documents' current versions are in each state. */
  async counts(): Promise<Record<ContentStatus, number>> {
    const rows = await this.dataSource
      .getRepository(Document)
      .createQueryBuilder('d')
      .leftJoin(DocumentContent, 'c', 'c.documentId = d.id AND c.version = d.currentVersion')
      .select("COALESCE(c.status, 'pending')", 'status')
      .addSelect('COUNT(*)', 'n')
      .where('d.deletedAt IS NULL AND d.sha256 IS NOT NULL')
      .groupBy("COALESCE(c.status, 'pending')")
      .getRawMany<{ status: ContentStatus; n: string | number }>();
    const counts = { pending: 0, processing: 0, indexed: 0, failed: 0, unsupported: 0, too_large: 0 };
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }

  /**
   * Queues the current versions of up to `limit` live documents after `afterId` (by id) that
   * `filter` takes, skipping those whose extraction is already queued or running. Answers how many
   * were queued and the last id looked at (undefined: no more).
   */
  async reindexBatch(
    tx: Tx,
    filter: ReindexFilter,
    afterId: string | undefined,
    limit: number,
    now: Date,
  ): Promise<{ queued: number; lastId: string | undefined }> {
    const query = tx
      .getRepository(Document)
      .createQueryBuilder('d')
      .select(['d.id', 'd.currentVersion'])
      .where('d.deletedAt IS NULL AND d.sha256 IS NOT NULL')
      .orderBy('d.id', 'ASC')
      .limit(limit);
    if (afterId !== undefined) query.andWhere('d.id > :afterId', { afterId });
    if (filter.projectId !== undefined) query.andWhere('d.projectId = :projectId', { projectId: filter.projectId });
    if (filter.documentTypeId !== undefined) {
      query.andWhere('d.documentTypeId = :documentTypeId', { documentTypeId: filter.documentTypeId });
    }
    if (filter.status === 'failed') {
      query.innerJoin(
        DocumentContent,
        'c',
        "c.documentId = d.id AND c.version = d.currentVersion AND c.status = 'failed'",
      );
    }
    const documents = await query.getMany();
    let queued = 0;
    for (const document of documents) {
      const subject = contentJobSubject(document.id, document.currentVersion);
      if (await this.jobs.hasOpen(tx, CONTENT_EXTRACTION_JOB, subject)) continue;
      await tx.getRepository(DocumentContent).delete({ documentId: document.id, version: document.currentVersion });
      await this.jobs.enqueue(
        tx,
        CONTENT_EXTRACTION_JOB,
        subject,
        { documentId: document.id, version: document.currentVersion },
        now,
      );
      queued++;
    }
    return { queued, lastId: documents.length === limit ? documents.at(-1)!.id : undefined };
  }

  /** Records a version's preview (its file already placed in the store). */
  async savePreview(tx: Tx, preview: DocumentPreview): Promise<void> {
    await tx.getRepository(DocumentPreview).upsert(preview, ['documentId', 'version', 'size']);
  }

  findPreview(documentId: string, version: number, size: PreviewSize): Promise<DocumentPreview | null> {
    return this.dataSource.getRepository(DocumentPreview).findOneBy({ documentId, version, size });
  }

  /** Those of `hashes` some preview names (the stored-file collector's question, PreviewFileReferences). */
  async previewsNaming(hashes: readonly string[], tx: Tx): Promise<string[]> {
    if (hashes.length === 0) return [];
    const rows = await tx
      .createQueryBuilder(DocumentPreview, 'p')
      .select('DISTINCT p.sha256', 'sha256')
      .where({ sha256: In([...hashes]) })
      .getRawMany<{ sha256: string }>();
    return rows.map((row) => row.sha256);
  }
}
