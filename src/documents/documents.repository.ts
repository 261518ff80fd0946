import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { dateFromStored, EntityRows, PREPARED, SqlRunner, type SqlStatement } from '../database/sql-runner.js';
import type { DomainEvent } from '../events/domain-event.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { isProjectRole, type ProjectRole } from '../projects/project-role.js';
import { callerFromRows, type AuthContext } from '../users/users.sql.js';
import {
  DOCUMENT_HISTORY_COLUMNS,
  DOCUMENT_HISTORY_INSERT_SQL,
  DOCUMENT_PARTICIPANTS_SQL,
  documentByIdSql,
  documentWithCallerSql,
  documentCountStatement,
  documentPageStatement,
  documentUpdateSql,
  MAX_SCOPED_DOCUMENTS,
  pageCarriesTotal,
  searchScopeEstimateStatement,
  trashCountStatement,
  trashedDocumentByIdSql,
  trashPageStatement,
  type DocumentListFilters,
  type DocumentListPosition,
  type DocumentSort,
  type DocumentVisibility,
  type SqlDialect,
} from './documents.sql.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { Document, type DocumentStatus } from './entities/document.entity.js';

/** The fields an update may change. */
export type EditableDocumentFields = Partial<Pick<Document, 'title' | 'description' | 'tags' | 'metadata'>>;

/** The fields a write may set: the metadata, the workflow status and the trash marks. */
export type WritableDocumentFields = EditableDocumentFields &
  Partial<Pick<Document, 'status' | 'deletedAt' | 'deletedBy'>>;

/** A document with the caller's role in its project, as the access policy needs it. */
export interface DocumentWithAccess {
  document: Document;
  projectRole: ProjectRole | null;
}

/** One update as the service decided it: written whole (with its history row) or not at all. */
export interface DocumentWrite {
  /** The document the change was computed from; the write applies only while it still has this rowVersion. */
  from: Document;
  /** The changed fields and their new values. */
  values: WritableDocumentFields;
  updatedAt: Date;
  rowVersion: number;
  history: DocumentHistory;
  /** The domain event recorded with the change (transactional outbox). */
  event?: DomainEvent;
  /**
   * Whether anyone besides the one making the change takes part in the document, as read with the
   * version the change was computed from (findForChange). Every write that adds a participant also
   * moves rowVersion, so when the conditional write lands this still holds. `false` stores the
   * event as dispatched: a document event is for its participants other than its actor
   * (NotificationDispatcher), so nobody is to hear of it. Unknown (undefined) leaves it to the dispatcher.
   */
  othersTakePart?: boolean;
}

const DOCUMENT_WITH_CALLER_SQL = documentWithCallerSql();
const DOCUMENT_FOR_CHANGE_SQL = documentWithCallerSql(true);

/**
 * Every statement and row mapping of documents. The update path is hand-written SQL
 * (documents.sql.ts) on the shared runner: it is a hot path, and TypeORM's query building and
 * entity hydration cost more CPU there than the database work itself. The history list is not,
 * and uses TypeORM's repository.
 */
@Injectable()
export class DocumentsRepository {
  private readonly documents: EntityRows<Document>;
  private readonly historyRows: EntityRows<DocumentHistory>;
  private readonly lockingRead: string;
  private readonly dialect: SqlDialect;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
    private readonly outbox: OutboxRepository,
    @InjectRepository(DocumentHistory) private readonly historyEntries: Repository<DocumentHistory>,
  ) {
    this.documents = new EntityRows(dataSource, Document);
    this.historyRows = new EntityRows(dataSource, DocumentHistory);
    this.lockingRead = documentByIdSql(dataSource.options.type === 'mysql');
    this.dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  /** A document in the trash, with the viewer's project role, or null when no trashed document has this id. */
  async findTrashed(id: string, viewerId: string): Promise<DocumentWithAccess | null> {
    const [row] = await this.sql.select<Record<string, unknown>>(trashedDocumentByIdSql(), [viewerId, id]);
    return row ? this.withAccess(row) : null;
  }

  /** The projects the user is a member of (any role): whose documents they may read. */
  async memberProjectIds(userId: string): Promise<string[]> {
    const rows = await this.sql.select<{ projectId: string }>(
      'SELECT projectId FROM project_members WHERE userId = ? ORDER BY projectId',
      [userId],
    );
    return rows.map((row) => row.projectId);
  }

  /** How many documents the list's filters match (exact). */
  async count(visibility: DocumentVisibility, filters: DocumentListFilters): Promise<number> {
    const [row] = await this.sql.select<{ total: string | number | null }>(
      ...documentCountStatement(this.dialect, visibility, filters),
    );
    return Number(row?.total ?? 0);
  }

  /**
   * One page of the list (see documentPageStatement) and the exact total of the filters' matches.
   * The MariaDB search answers both in one statement (pageCarriesTotal); otherwise the count comes
   * first and a page past the end is not read.
   */
  async page(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
    sort: DocumentSort,
    take: number,
    offset: number,
    after?: DocumentListPosition,
  ): Promise<{ documents: Document[]; total: number }> {
    const carriesTotal = pageCarriesTotal(this.dialect, filters);
    if (carriesTotal) visibility = await this.searchVisibility(visibility, filters);
    const read = () =>
      this.sql.select<Record<string, unknown>>(
        ...documentPageStatement(this.dialect, visibility, filters, sort, take, offset, after),
      );
    if (!carriesTotal) {
      const total = await this.count(visibility, filters);
      if (offset >= total) return { documents: [], total };
      return { documents: (await read()).map(documentFromRow), total };
    }
    const rows = await read();
    // Nothing on this page: it is the total only when it was the first.
    if (rows.length === 0) {
      return { documents: [], total: offset === 0 && !after ? 0 : await this.count(visibility, filters) };
    }
    return { documents: rows.map(documentFromRow), total: Number(rows[0].total) };
  }

  /** The MariaDB search's visibility, with `byTokens` when the caller's tokens name few documents (see MAX_SCOPED_DOCUMENTS). */
  private async searchVisibility(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
  ): Promise<DocumentVisibility> {
    const statement = searchScopeEstimateStatement(visibility, filters);
    if (!statement) return visibility;
    const plan = await this.sql.select<{ rows: string | number | null }>(...statement);
    const named = plan.reduce((sum, step) => sum + Number(step.rows ?? 0), 0);
    return { ...visibility, byTokens: named <= MAX_SCOPED_DOCUMENTS };
  }

  async trashCount(everything: boolean, userId: string): Promise<number> {
    const [row] = await this.sql.select<{ total: string | number | null }>(...trashCountStatement(everything, userId));
    return Number(row?.total ?? 0);
  }

  async trashPage(everything: boolean, userId: string, take: number, offset: number): Promise<Document[]> {
    const rows = await this.sql.select<Record<string, unknown>>(
      ...trashPageStatement(everything, userId, take, offset),
    );
    return rows.map(documentFromRow);
  }

  /** A document field's value in the form its column stores (list filters and cursor positions). */
  stored(property: 'updatedAt' | 'createdAt', value: Date): unknown {
    return this.documents.toColumn(property, value);
  }

  /** Up to `limit` trashed documents deleted before `cutoff` (or only `id`), oldest deletion first. */
  async purgeCandidates(cutoff: Date, limit: number, id?: string): Promise<string[]> {
    const rows = await this.sql.select<{ id: string }>(
      id === undefined
        ? 'SELECT id FROM documents WHERE deletedAt IS NOT NULL AND deletedAt < ? ORDER BY deletedAt, id LIMIT ?'
        : 'SELECT id FROM documents WHERE deletedAt IS NOT NULL AND id = ?',
      id === undefined ? [this.documents.toColumn('deletedAt', cutoff), limit] : [id],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Removes documents (only trashed ones unless `evenLive`: the permanent delete) with their
   * versions and history (foreign keys cascade) in one transaction, and answers how many went and
   * the file addresses their versions used that no remaining version references.
   */
  purge(ids: readonly string[], evenLive: boolean): Promise<{ documents: number; hashes: string[] }> {
    if (ids.length === 0) return Promise.resolve({ documents: 0, hashes: [] });
    const marks = ids.map(() => '?').join(', ');
    return this.sql.transaction(async (tx) => {
      const used = await tx.select<{ sha256: string }>(
        `SELECT DISTINCT sha256 FROM document_versions WHERE documentId IN (${marks}) AND sha256 IS NOT NULL`,
        [...ids],
      );
      const documents = await tx.execute(
        `DELETE FROM documents WHERE id IN (${marks})${evenLive ? '' : ' AND deletedAt IS NOT NULL'}`,
        [...ids],
      );
      const hashes = used.map((row) => row.sha256);
      return { documents, hashes: await this.unreferenced(tx, hashes) };
    });
  }

  /** Those of `hashes` no document version references. */
  unreferencedHashes(hashes: readonly string[]): Promise<string[]> {
    return this.unreferenced(this.sql, hashes);
  }

  private async unreferenced(runner: Pick<SqlRunner, 'select'>, hashes: readonly string[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const still = await runner.select<{ sha256: string }>(
      `SELECT DISTINCT sha256 FROM document_versions WHERE sha256 IN (${hashes.map(() => '?').join(', ')})`,
      [...hashes],
    );
    const kept = new Set(still.map((row) => row.sha256));
    return hashes.filter((hash) => !kept.has(hash));
  }

  /** The document and the viewer's role in its project, or null when no document has this id. */
  async findById(id: string, viewerId: string): Promise<DocumentWithAccess | null> {
    const [row] = await this.sql.select<Record<string, unknown>>(documentByIdSql(), [viewerId, id]);
    return row ? this.withAccess(row) : null;
  }

  /**
   * The document as findById answers it and the caller's session and roles, in one statement (the
   * session check of a `sessionCheckedByQuery` route rides on the read it makes anyway).
   */
  async findWithCaller(
    id: string,
    callerId: string,
  ): Promise<{ caller: AuthContext | null; found: DocumentWithAccess | null }> {
    const { caller, row } = await this.readWithCaller(DOCUMENT_WITH_CALLER_SQL, id, callerId);
    return { caller, found: row ? this.withAccess(row) : null };
  }

  /**
   * findWithCaller for a change: also whether anyone besides the caller takes part in the document
   * (DocumentWrite.othersTakePart; undefined without a document), read in the same statement.
   */
  async findForChange(
    id: string,
    callerId: string,
  ): Promise<{ caller: AuthContext | null; found: DocumentWithAccess | null; othersTakePart?: boolean }> {
    const { caller, row } = await this.readWithCaller(DOCUMENT_FOR_CHANGE_SQL, id, callerId);
    if (!row) return { caller, found: null };
    // 1 or 0 on SQLite, on MariaDB too ('1'/'0' should a driver answer text).
    return { caller, found: this.withAccess(row), othersTakePart: Number(row.othersTakePart) === 1 };
  }

  /** A documentWithCallerSql statement's caller, and its document row (undefined when there is no such live document). */
  private async readWithCaller(
    sql: string,
    id: string,
    callerId: string,
  ): Promise<{ caller: AuthContext | null; row?: Record<string, unknown> }> {
    // Every update and GET reads through here.
    const rows = await this.sql.select<Record<string, unknown>>(sql, [id, callerId], PREPARED);
    const [first] = rows;
    return { caller: callerFromRows(rows), row: first && first.id !== null ? first : undefined };
  }

  /**
   * Writes the update and its history row in one transaction if the document still has the
   * version the change was computed from; answers whether it did (nothing is written otherwise).
   */
  writeIfUnchanged(write: DocumentWrite): Promise<boolean> {
    return this.sql.writeIfChanged(
      this.updateStatement(write),
      this.historyStatement(write.history),
      ...this.eventStatements(write),
    );
  }

  /**
   * Reads the document under a row lock (FOR UPDATE on MySQL; SQLite serialises writers), lets
   * `decide` compute the update, and writes it in the same transaction.
   */
  updateLocked<T>(
    id: string,
    viewerId: string,
    decide: (found: DocumentWithAccess | null) => { result: T; write?: DocumentWrite },
  ): Promise<T> {
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.select<Record<string, unknown>>(this.lockingRead, [viewerId, id]);
      const { result, write } = decide(row ? this.withAccess(row) : null);
      if (write) {
        if ((await tx.execute(...this.updateStatement(write))) !== 1) {
          throw new Error('A locked document changed under its lock');
        }
        await tx.execute(...this.historyStatement(write.history));
        for (const statement of this.eventStatements(write)) await tx.execute(...statement);
      }
      return result;
    });
  }

  /**
   * A document's participants (notification recipients): its uploader and everyone who changed
   * its metadata, added a version or changed its status (every history entry's author).
   */
  async participantIds(documentId: string): Promise<string[]> {
    const rows = await this.sql.select<{ userId: string }>(DOCUMENT_PARTICIPANTS_SQL, [
      documentId,
      documentId,
      documentId,
    ]);
    return rows.map((row) => row.userId);
  }

  /** Newest first, at most `limit` entries. */
  history(documentId: string, limit: number): Promise<DocumentHistory[]> {
    return this.historyEntries.find({
      where: { documentId },
      order: { changedAt: 'DESC', rowVersion: 'DESC' },
      take: limit,
    });
  }

  private withAccess(row: Record<string, unknown>): DocumentWithAccess {
    const role = row.callerProjectRole;
    return { document: documentFromRow(row), projectRole: isProjectRole(role) ? role : null };
  }

  private updateStatement({ from, values, updatedAt, rowVersion }: DocumentWrite): SqlStatement {
    const fields = Object.keys(values) as (keyof WritableDocumentFields)[];
    return [
      documentUpdateSql(fields),
      [
        ...fields.map((field) => this.documents.toColumn(field, values[field])),
        this.documents.toColumn('updatedAt', updatedAt),
        this.documents.toColumn('rowVersion', rowVersion),
        from.id,
        from.rowVersion,
      ],
    ];
  }

  /** The outbox row of the change, committed with it (already dispatched when nobody else takes part). */
  private eventStatements(write: DocumentWrite): SqlStatement[] {
    if (!write.event) return [];
    return [this.outbox.insertStatement(write.event, write.updatedAt, { dispatched: write.othersTakePart === false })];
  }

  private historyStatement(entry: DocumentHistory): SqlStatement {
    return [
      DOCUMENT_HISTORY_INSERT_SQL,
      DOCUMENT_HISTORY_COLUMNS.map((column) => this.historyRows.toColumn(column, entry[column])),
    ];
  }
}

/**
 * A row of DOCUMENT_COLUMNS as the entity, converted as TypeORM hydrates it (the repository spec
 * compares the two on both databases) but by hand: TypeORM's per-column conversion (regular
 * expressions per SQLite date, a lookup per column) was ~12 µs of an update's CPU profile on SQLite.
 */
function documentFromRow(row: Record<string, unknown>): Document {
  const document = new Document();
  document.id = row.id as string;
  document.projectId = row.projectId as string;
  document.documentTypeId = row.documentTypeId as string;
  document.title = row.title as string;
  document.description = row.description as string;
  document.fileName = row.fileName as string;
  // BIGINT: text from mysql2, a number from better-sqlite3.
  document.fileSize = Number(row.fileSize);
  document.mimeType = row.mimeType as string;
  document.currentVersion = Number(row.currentVersion);
  document.status = row.status as DocumentStatus;
  // simple-json: the JSON text on both databases.
  document.tags = JSON.parse(row.tags as string) as string[];
  document.metadata = JSON.parse(row.metadata as string) as Record<string, unknown>;
  document.uploadedBy = row.uploadedBy as string;
  document.rowVersion = Number(row.rowVersion);
  document.createdAt = dateFromStored(row.createdAt);
  document.updatedAt = dateFromStored(row.updatedAt);
  document.sha256 = (row.sha256 ?? null) as string | null;
  document.deletedAt = row.deletedAt === null || row.deletedAt === undefined ? null : dateFromStored(row.deletedAt);
  document.deletedBy = (row.deletedBy ?? null) as string | null;
  return document;
}
