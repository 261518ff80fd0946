import { DocumentPreview } from '../content/entities/document-preview.entity.js';
import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, Not, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { ApiError } from '../common/errors/error-codes.js';
import type { Tx } from '../database/transactions.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { isProjectRole, type ProjectRole } from '../projects/project-role.js';
import type { DocumentChange } from './document-change.js';
import { DocumentCounts } from './document-counts.repository.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { DocumentParticipant } from './entities/document-participant.entity.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';

/** A document with the caller's role in its project (null: not a member), as the access policy needs it. */
export interface DocumentWithAccess {
  document: Document;
  projectRole: ProjectRole | null;
}

export interface FindOptions {
  /** Look in the trash instead of among live documents. */
  trashed?: boolean;
  /** Inside a write: lock the row until the transaction ends (MySQL/MariaDB; SQLite has one writer). */
  lock?: boolean;
}

/** Every statement of a document's row, its history and its participants. */
@Injectable()
export class DocumentsRepository {
  private readonly locks: boolean;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
    private readonly counts: DocumentCounts,
  ) {
    this.locks = dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
  }

  /** The document (live, or in the trash with `trashed`) and the viewer's role in its project. */
  async find(
    id: string,
    viewerId: string,
    { trashed = false, lock = false }: FindOptions = {},
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DocumentWithAccess | null> {
    const query = manager
      .getRepository(Document)
      .createQueryBuilder('d')
      .leftJoin(ProjectMember, 'pm', 'pm.projectId = d.projectId AND pm.userId = :viewerId', { viewerId })
      .addSelect('pm.role', 'callerProjectRole')
      .where('d.id = :id', { id })
      .andWhere(trashed ? 'd.deletedAt IS NOT NULL' : 'd.deletedAt IS NULL');
    if (lock && this.locks) query.setLock('pessimistic_write');
    const { entities, raw } = await query.getRawAndEntities<{ callerProjectRole: unknown }>();
    if (entities.length === 0) return null;
    const role = raw[0].callerProjectRole;
    return { document: entities[0], projectRole: isProjectRole(role) ? role : null };
  }

  /** A new document with its first version: the rows, its uploader as participant and the event. */
  async insert(tx: Tx, change: DocumentChange): Promise<void> {
    await tx.insert(Document, change.document as QueryDeepPartialEntity<Document>);
    await this.counts.move(tx, [{ before: null, after: change.document }]);
    // document.created is for the project's members (NotificationDispatcher), never stored as heard.
    await this.recordChange(tx, change, false);
  }

  /**
   * Applies a change computed from `change.from`: the UPDATE lands only while the row still has
   * that rowVersion (409 otherwise), then its history row, version row, participant and event.
   */
  async applyChange(tx: Tx, change: DocumentChange): Promise<void> {
    const { from, values, document } = change;
    const result = await tx
      .createQueryBuilder()
      .update(Document)
      .set({
        ...values,
        updatedAt: document.updatedAt,
        rowVersion: document.rowVersion,
      } as QueryDeepPartialEntity<Document>)
      .where('id = :id AND rowVersion = :rowVersion', { id: from.id, rowVersion: from.rowVersion })
      .execute();
    if (result.affected !== 1) {
      throw new ApiError('conflict', 'The document changed while this request applied; try again.');
    }
    // `from` is the row as it was: the UPDATE landed only on its rowVersion.
    await this.counts.move(tx, [{ before: from, after: document }]);
    // Any other document event is for its participants but the actor: with none, nobody is to hear of it.
    const othersTakePart =
      from.uploadedBy !== change.history.changedBy ||
      (await tx.existsBy(DocumentParticipant, { documentId: from.id, userId: Not(change.history.changedBy) }));
    await this.recordChange(tx, change, !othersTakePart);
  }

  /** Newest first, at most `limit` entries. */
  history(documentId: string, limit: number): Promise<DocumentHistory[]> {
    return this.dataSource.getRepository(DocumentHistory).find({
      where: { documentId },
      order: { changedAt: 'DESC', rowVersion: 'DESC' },
      take: limit,
    });
  }

  /** Up to `limit` trashed documents deleted before `cutoff` (but those in `except`), oldest deletion first. */
  async purgeCandidates(cutoff: Date, limit: number, except: string[] = []): Promise<string[]> {
    const query = this.dataSource
      .getRepository(Document)
      .createQueryBuilder('d')
      .select('d.id', 'id')
      .where('d.deletedAt IS NOT NULL AND d.deletedAt < :cutoff', { cutoff });
    if (except.length) query.andWhere('d.id NOT IN (:...except)', { except });
    const rows = await query
      .orderBy('d.deletedAt', 'ASC')
      .addOrderBy('d.id', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((row) => row.id);
  }

  /**
   * Deletes documents (only trashed ones unless `evenLive`) with their versions, history and
   * participants (foreign keys cascade); answers the documents removed and the file addresses
   * their versions used that no remaining version references.
   */
  async remove(tx: Tx, ids: readonly string[], evenLive: boolean): Promise<{ removed: Document[]; hashes: string[] }> {
    if (ids.length === 0) return { removed: [], hashes: [] };
    // Locked: a restore racing the removal must not leave it counted (SQLite has one writer).
    const removed = await tx.find(Document, {
      where: { id: In([...ids]), ...(evenLive ? {} : { deletedAt: Not(IsNull()) }) },
      ...(this.locks ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (removed.length === 0) return { removed, hashes: [] };
    const removedIds = removed.map((document) => document.id);
    const used = await tx
      .createQueryBuilder(DocumentVersion, 'v')
      .select('DISTINCT v.sha256', 'sha256')
      .where({ documentId: In(removedIds), sha256: Not(IsNull()) })
      .getRawMany<{ sha256: string }>();
    await tx.delete(Document, { id: In(removedIds) });
    await this.counts.move(
      tx,
      removed.map((document) => ({ before: document, after: null })),
    );
    return {
      removed,
      hashes: await this.unreferencedHashes(
        used.map((row) => row.sha256),
        tx,
      ),
    };
  }

  /** Those of `hashes` no document version (nor a version's preview, src/content) references. */
  async unreferencedHashes(
    hashes: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    if (hashes.length === 0) return [];
    const still = await manager
      .createQueryBuilder(DocumentVersion, 'v')
      .select('DISTINCT v.sha256', 'sha256')
      .where({ sha256: In([...hashes]) })
      .getRawMany<{ sha256: string }>();
    const previews = await manager
      .createQueryBuilder(DocumentPreview, 'p')
      .select('DISTINCT p.sha256', 'sha256')
      .where({ sha256: In([...hashes]) })
      .getRawMany<{ sha256: string }>();
    const kept = new Set([...still, ...previews].map((row) => row.sha256));
    return hashes.filter((hash) => !kept.has(hash));
  }

  /** Every stored file a version names, with its recorded size (StoredFileReferences, storage:verify). */
  async referencedFiles(): Promise<{ sha256: string; size: number }[]> {
    const rows = await this.dataSource
      .createQueryBuilder(DocumentVersion, 'v')
      .select('v.sha256', 'sha256')
      .addSelect('MAX(v.fileSize)', 'size')
      .where({ sha256: Not(IsNull()) })
      .groupBy('v.sha256')
      .getRawMany<{ sha256: string; size: number | string }>();
    return rows.map((row) => ({ sha256: row.sha256, size: Number(row.size) }));
  }

  /** The rows every change writes with the document: history, version, participant, event. */
  private async recordChange(
    tx: Tx,
    { history, version, event, document }: DocumentChange,
    dispatched: boolean,
  ): Promise<void> {
    await tx.insert(DocumentHistory, history as QueryDeepPartialEntity<DocumentHistory>);
    if (version) await tx.insert(DocumentVersion, version);
    // Whoever changes a document takes part in it from then on (DocumentParticipants).
    await tx
      .createQueryBuilder()
      .insert()
      .into(DocumentParticipant)
      .values({ documentId: document.id, userId: history.changedBy })
      .orIgnore()
      .execute();
    await this.outbox.append(tx, event, document.updatedAt, { dispatched });
  }
}
