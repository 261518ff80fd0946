import { Injectable } from '@nestjs/common';
import {
  DataSource,
  In,
  IsNull,
  Not,
  type EntityManager,
  type EntityTarget,
  type ObjectLiteral,
  type QueryDeepPartialEntity,
} from 'typeorm';
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

/** Whether the viewer already takes part in the document. */
export interface Participation {
  viewer: boolean;
}

export interface DocumentForChange extends DocumentWithAccess {
  participation: Participation;
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
    const query = this.withAccess(manager, id, viewerId, trashed);
    if (lock && this.locks) query.setLock('pessimistic_write');
    const { entities, raw } = await query.getRawAndEntities<{ callerProjectRole: unknown }>();
    if (entities.length === 0) return null;
    return { document: entities[0], projectRole: projectRoleOf(raw[0].callerProjectRole) };
  }

  /**
   * The document about to change, locked until the transaction ends (MySQL/MariaDB; SQLite has one
   * writer), with the viewer's project role and whether the viewer takes part in it, in one statement.
   */
  async findForChange(tx: Tx, id: string, viewerId: string, trashed: boolean): Promise<DocumentForChange | null> {
    const query = this.withAccess(tx, id, viewerId, trashed).addSelect(
      participantExists('p.userId = :viewerId'),
      'viewerTakesPart',
    );
    if (this.locks) query.setLock('pessimistic_write');
    const { entities, raw } = await query.getRawAndEntities<{
      callerProjectRole: unknown;
      viewerTakesPart: number | string;
    }>();
    if (entities.length === 0) return null;
    const [row] = raw;
    return {
      document: entities[0],
      projectRole: projectRoleOf(row.callerProjectRole),
      participation: { viewer: Number(row.viewerTakesPart) === 1 },
    };
  }

  private withAccess(manager: EntityManager, id: string, viewerId: string, trashed: boolean) {
    return manager
      .getRepository(Document)
      .createQueryBuilder('d')
      .leftJoin(ProjectMember, 'pm', 'pm.projectId = d.projectId AND pm.userId = :viewerId', { viewerId })
      .addSelect('pm.role', 'callerProjectRole')
      .where('d.id = :id', { id })
      .andWhere(trashed ? 'd.deletedAt IS NOT NULL' : 'd.deletedAt IS NULL');
  }

  /** A new document with its first version: the rows, its uploader as participant and the event. */
  async insert(tx: Tx, change: DocumentChange): Promise<void> {
    await insertRow(tx, Document, change.document);
    // document.created is for the project's members (NotificationDispatcher), never stored as heard.
    await this.recordChange(tx, change, { newParticipant: true });
    // Last: concurrent uploads to one project queue on its count rows only until this commits.
    await this.counts.move(tx, [{ before: null, after: change.document }]);
  }

  /**
   * Applies a change computed from `change.from`: the UPDATE lands only while the row still has
   * that rowVersion (409 otherwise), then its history row, version row, participant and event.
   */
  async applyChange(tx: Tx, change: DocumentChange, participation: Participation): Promise<void> {
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
    // The event is never marked heard here: watchers may hear of it even when nobody else takes part.
    await this.recordChange(tx, change, { newParticipant: !participation.viewer });
    // `from` is the row as it was (the UPDATE landed only on its rowVersion); last, as in insert().
    await this.counts.move(tx, [{ before: from, after: document }]);
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

  /** Those of `hashes` no document version references. */
  async unreferencedHashes(
    hashes: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    const kept = new Set(await this.referencedAmong(hashes, manager));
    return hashes.filter((hash) => !kept.has(hash));
  }

  /** Those of `hashes` some document version references (StoredFileReferenceSource). */
  async referencedAmong(
    hashes: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    if (hashes.length === 0) return [];
    const rows = await manager
      .createQueryBuilder(DocumentVersion, 'v')
      .select('DISTINCT v.sha256', 'sha256')
      .where({ sha256: In([...hashes]) })
      .getRawMany<{ sha256: string }>();
    return rows.map((row) => row.sha256);
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

  /**
   * The rows every change writes with the document: history, version, participant (whoever changes
   * a document takes part in it from then on, see DocumentParticipants) and event.
   */
  private async recordChange(
    tx: Tx,
    { history, version, event, document }: DocumentChange,
    { newParticipant }: { newParticipant: boolean },
  ): Promise<void> {
    await insertRow(tx, DocumentHistory, history);
    if (version) await insertRow(tx, DocumentVersion, version);
    if (newParticipant) {
      await tx
        .createQueryBuilder()
        .insert()
        .into(DocumentParticipant)
        .values({ documentId: document.id, userId: history.changedBy })
        .orIgnore()
        .execute();
    }
    await this.outbox.append(tx, event, document.updatedAt);
  }
}

function projectRoleOf(value: unknown): ProjectRole | null {
  return isProjectRole(value) ? value : null;
}

/** Whether a participant of the document `d` matches `condition` (alias p). */
function participantExists(condition: string): string {
  return `EXISTS (SELECT 1 FROM document_participants p WHERE p.documentId = d.id AND ${condition})`;
}

/** One row as given: the row's values are all known, so nothing is read back after the INSERT. */
async function insertRow<T extends ObjectLiteral>(tx: Tx, entity: EntityTarget<T>, row: T): Promise<void> {
  await tx.createQueryBuilder().insert().into(entity).values(row).updateEntity(false).execute();
}
