import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, SqlRunner, type SqlStatement } from '../database/sql-runner.js';
import type { DomainEvent } from '../events/domain-event.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { isProjectRole, type ProjectRole } from '../projects/project-role.js';
import { DOCUMENT_COLUMNS, DOCUMENT_HISTORY_COLUMNS, DOCUMENT_HISTORY_INSERT_SQL } from './documents.sql.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { DocumentVersion } from './entities/document-version.entity.js';
import { Document } from './entities/document.entity.js';

const VERSION_COLUMNS = [
  'documentId',
  'version',
  'fileName',
  'fileSize',
  'mimeType',
  'sha256',
  'comment',
  'uploadedBy',
  'createdAt',
] as const;

const insertSql = (table: string, columns: readonly string[]) =>
  `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;

const DOCUMENT_INSERT_SQL = insertSql('documents', DOCUMENT_COLUMNS);
const VERSION_INSERT_SQL = insertSql('document_versions', VERSION_COLUMNS);
/** The file fields a new version changes, conditional on the row version the change was computed from. */
const NEW_VERSION_UPDATE_SQL =
  'UPDATE documents SET fileName = ?, fileSize = ?, mimeType = ?, sha256 = ?, currentVersion = ?, ' +
  'updatedAt = ?, rowVersion = ? WHERE id = ? AND rowVersion = ? AND deletedAt IS NULL';

/** Where a new document would go, as the create rules need it (one statement). */
export interface CreateTarget {
  projectExists: boolean;
  /** The caller's role in the project; null when not a member. */
  projectRole: ProjectRole | null;
  documentTypeExists: boolean;
}

/** A new document with its first version, history entry and event: written whole or not at all. */
export interface DocumentCreation {
  document: Document;
  version: DocumentVersion;
  history: DocumentHistory;
  event: DomainEvent;
}

/** A new version of an existing document, applied only while the document has `expectedRowVersion`. */
export interface VersionAddition {
  document: Document;
  expectedRowVersion: number;
  version: DocumentVersion;
  history: DocumentHistory;
  event: DomainEvent;
}

/** The statements of document files: creation with a first version, further versions, their lists. */
@Injectable()
export class DocumentVersionsRepository {
  private readonly documents: EntityRows<Document>;
  private readonly versions: EntityRows<DocumentVersion>;
  private readonly historyRows: EntityRows<DocumentHistory>;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
    private readonly outbox: OutboxRepository,
  ) {
    this.documents = new EntityRows(dataSource, Document);
    this.versions = new EntityRows(dataSource, DocumentVersion);
    this.historyRows = new EntityRows(dataSource, DocumentHistory);
  }

  async createTarget(userId: string, projectId: string, documentTypeId: string): Promise<CreateTarget> {
    const [row] = await this.sql.select<{ projectId: string | null; role: unknown; typeId: string | null }>(
      'SELECT p.id AS projectId, pm.role AS role, (SELECT t.id FROM document_types t WHERE t.id = ?) AS typeId ' +
        'FROM (SELECT 1 AS one) x LEFT JOIN projects p ON p.id = ? ' +
        'LEFT JOIN project_members pm ON pm.projectId = p.id AND pm.userId = ?',
      [documentTypeId, projectId, userId],
    );
    return {
      projectExists: row?.projectId != null,
      projectRole: isProjectRole(row?.role) ? row.role : null,
      documentTypeExists: row?.typeId != null,
    };
  }

  /** Inserts the document, its version 1, its history entry and its outbox event in one transaction. */
  async create({ document, version, history, event }: DocumentCreation): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.execute(
        DOCUMENT_INSERT_SQL,
        DOCUMENT_COLUMNS.map((column) => this.documents.toColumn(column, document[column])),
      );
      await tx.execute(...this.versionStatement(version));
      await tx.execute(...this.historyStatement(history));
      await this.outbox.append(tx, event, document.createdAt);
    });
  }

  /**
   * Moves the document to the new version (its file fields, currentVersion, updatedAt, rowVersion)
   * and inserts the version row, history entry and event, in one transaction, if the document
   * still has `expectedRowVersion`; answers whether it did (nothing is written otherwise).
   */
  addVersion({ document, expectedRowVersion, version, history, event }: VersionAddition): Promise<boolean> {
    const update: SqlStatement = [
      NEW_VERSION_UPDATE_SQL,
      [
        this.documents.toColumn('fileName', document.fileName),
        this.documents.toColumn('fileSize', document.fileSize),
        this.documents.toColumn('mimeType', document.mimeType),
        this.documents.toColumn('sha256', document.sha256),
        this.documents.toColumn('currentVersion', document.currentVersion),
        this.documents.toColumn('updatedAt', document.updatedAt),
        this.documents.toColumn('rowVersion', document.rowVersion),
        document.id,
        expectedRowVersion,
      ],
    ];
    return this.sql.writeIfChanged(
      update,
      this.versionStatement(version),
      this.historyStatement(history),
      this.outbox.insertStatement(event, document.updatedAt),
    );
  }

  async findVersion(documentId: string, version: number): Promise<DocumentVersion | null> {
    const [row] = await this.sql.select<Record<string, unknown>>(
      `SELECT ${VERSION_COLUMNS.join(', ')} FROM document_versions WHERE documentId = ? AND version = ?`,
      [documentId, version],
    );
    return row ? this.versions.fromRow(row) : null;
  }

  /** One page of a document's versions, newest first, and how many there are. */
  async list(
    documentId: string,
    offset: number,
    limit: number,
  ): Promise<{ versions: DocumentVersion[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      this.sql.select<Record<string, unknown>>(
        `SELECT ${VERSION_COLUMNS.join(', ')} FROM document_versions WHERE documentId = ? ` +
          'ORDER BY version DESC LIMIT ? OFFSET ?',
        [documentId, limit, offset],
      ),
      this.sql.select<{ total: number | string }>(
        'SELECT COUNT(*) AS total FROM document_versions WHERE documentId = ?',
        [documentId],
      ),
    ]);
    return { versions: rows.map((row) => this.versions.fromRow(row)), total: Number(count.total) };
  }

  private versionStatement(version: DocumentVersion): SqlStatement {
    return [VERSION_INSERT_SQL, VERSION_COLUMNS.map((column) => this.versions.toColumn(column, version[column]))];
  }

  private historyStatement(entry: DocumentHistory): SqlStatement {
    return [
      DOCUMENT_HISTORY_INSERT_SQL,
      DOCUMENT_HISTORY_COLUMNS.map((column) => this.historyRows.toColumn(column, entry[column])),
    ];
  }
}
