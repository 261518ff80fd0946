import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import {
  entityFromRow,
  HotPathSql,
  persistedValue,
  type SqlStatement,
  type SqlTransaction,
} from '../database/hot-path-sql.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import type { UpdateDocumentDto } from './dto/update-document.dto.js';
import { DocumentHistory, type FieldChange } from './entities/document-history.entity.js';
import { Document } from './entities/document.entity.js';

type EditableField = 'title' | 'description' | 'tags' | 'metadata';
const EDITABLE_FIELDS: EditableField[] = ['title', 'description', 'tags', 'metadata'];

export function etagOf(document: Pick<Document, 'rowVersion'>): string {
  return `"v${document.rowVersion}"`;
}

/** RFC 9110 If-Match: "*" or a list of entity tags; weak tags never match. */
export function ifMatchSatisfied(header: string, document: Pick<Document, 'rowVersion'>): boolean {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const current = etagOf(document);
  return trimmed.split(',').some((tag) => tag.trim() === current);
}

/** Drops duplicates keeping the first occurrence (tags arrive already trimmed by the DTO). */
export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

/** Editable fields, as they are about to be written. */
type EditableValues = Partial<Pick<Document, EditableField>>;

/**
 * Hand-written SQL for the update hot path, built once from the entity metadata. Identifiers are
 * plain camelCase names (see the InitialSchema migration), so they need no quoting on either
 * database.
 */
interface UpdateStatements {
  select: string;
  selectForUpdate: string;
  insertHistory: string;
}

@Injectable()
export class DocumentsService {
  private readonly statements: UpdateStatements;

  constructor(
    @InjectRepository(Document) private readonly documents: Repository<Document>,
    @InjectRepository(DocumentHistory) private readonly historyEntries: Repository<DocumentHistory>,
    private readonly policy: DocumentAccessPolicy,
    private readonly dataSource: DataSource,
    private readonly sql: HotPathSql,
  ) {
    const document = documents.metadata;
    const history = historyEntries.metadata;
    const documentColumns = document.columns.map((column) => column.databaseName).join(', ');
    const historyColumns = history.columns.map((column) => column.databaseName);
    const placeholders = historyColumns.map(() => '?').join(', ');
    const select = `SELECT ${documentColumns} FROM ${document.tableName} WHERE ${this.column('id')} = ?`;
    this.statements = {
      select,
      // MySQL only: SQLite serialises writers and has no FOR UPDATE.
      selectForUpdate: dataSource.options.type === 'mysql' ? `${select} FOR UPDATE` : select,
      insertHistory: `INSERT INTO ${history.tableName} (${historyColumns.join(', ')}) VALUES (${placeholders})`,
    };
  }

  /**
   * Applies the given fields (omitted ones keep their value) with a conditional UPDATE on the
   * row version plus a history row, in one transaction. With If-Match a stale version is 412.
   * Without it, a lost race falls back to a locked read-modify-write, so the update always
   * lands whole and never becomes a 412 the client did not ask for.
   *
   * Hand-written SQL (one SELECT; then UPDATE and INSERT in one transaction): this is the hot
   * path, and TypeORM's query building and entity hydration cost more CPU here than the
   * database work itself. Values still go through the driver's own conversions both ways.
   */
  async update(
    documentId: string,
    input: UpdateDocumentDto,
    user: AuthenticatedUser,
    ifMatch?: string,
  ): Promise<Document> {
    const document = await this.findUpdatable(documentId, user);
    if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
    const changes = this.diff(document, input);
    if (Object.keys(changes).length === 0) return document;

    const write = this.conditionalWrite(document, changes, user);
    if (await this.sql.writeIfChanged(write.update, write.history)) return write.updated;
    if (ifMatch !== undefined) throw stale(document);
    return this.updateLocked(documentId, input, user);
  }

  /** The contended path: read the row FOR UPDATE (MySQL; SQLite serialises writers) and write. */
  private updateLocked(documentId: string, input: UpdateDocumentDto, user: AuthenticatedUser): Promise<Document> {
    return this.sql.transaction(async (tx) => {
      const document = await this.findUpdatable(documentId, user, tx);
      const changes = this.diff(document, input);
      if (Object.keys(changes).length === 0) return document;
      const write = this.conditionalWrite(document, changes, user);
      if ((await tx.execute(...write.update)) !== 1) throw new Error('A locked document changed under its lock');
      await tx.execute(...write.history);
      return write.updated;
    });
  }

  async history(documentId: string, user: AuthenticatedUser): Promise<DocumentHistory[]> {
    await this.findUpdatable(documentId, user);
    return this.historyEntries.find({
      where: { documentId },
      order: { changedAt: 'DESC', rowVersion: 'DESC' },
      take: 500,
    });
  }

  /** Reads the document on its own, or inside the given transaction with a row lock. */
  private async findUpdatable(documentId: string, user: AuthenticatedUser, locked?: SqlTransaction): Promise<Document> {
    const rows = locked
      ? await locked.select<Record<string, unknown>>(this.statements.selectForUpdate, [documentId])
      : await this.sql.select<Record<string, unknown>>(this.statements.select, [documentId]);
    const row = rows[0];
    if (!row) throw new ApiError('document_not_found', `No document has the id ${documentId}.`);
    const document = this.hydrate(row);
    if (!this.policy.canUpdate(user, document)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader of this document or a user whose role grants documents:update may change it.',
      );
    }
    return document;
  }

  private diff(document: Document, input: UpdateDocumentDto): Partial<Record<EditableField, FieldChange>> {
    const next: EditableValues = {
      title: input.title,
      description: input.description,
      tags: input.tags === undefined ? undefined : normalizeTags(input.tags),
      metadata: input.metadata,
    };
    const changes: Partial<Record<EditableField, FieldChange>> = {};
    for (const field of EDITABLE_FIELDS) {
      const value = next[field];
      if (value === undefined) continue;
      if (JSON.stringify(value) !== JSON.stringify(document[field])) {
        changes[field] = { from: document[field], to: value };
      }
    }
    return changes;
  }

  /**
   * The two statements of an update: the UPDATE, conditional on the row version the change was
   * computed from (a concurrent write makes it match no row), and the history INSERT that must
   * land with it; plus the document as it is once both have.
   */
  private conditionalWrite(
    document: Document,
    changes: Partial<Record<EditableField, FieldChange>>,
    user: AuthenticatedUser,
  ): { update: SqlStatement; history: SqlStatement; updated: Document } {
    const fields = Object.keys(changes) as EditableField[];
    const values = Object.fromEntries(fields.map((field) => [field, changes[field]!.to])) as EditableValues;
    // updatedAt strictly increases even when two writes land in the same millisecond.
    const updatedAt = new Date(Math.max(Date.now(), document.updatedAt.getTime() + 1));
    const rowVersion = document.rowVersion + 1;

    const written: (keyof Document)[] = [...fields, 'updatedAt', 'rowVersion'];
    const assignments = written.map((field) => `${this.column(field)} = ?`);
    const update: SqlStatement = [
      `UPDATE ${this.documents.metadata.tableName} SET ${assignments.join(', ')} ` +
        `WHERE ${this.column('id')} = ? AND ${this.column('rowVersion')} = ?`,
      [
        ...fields.map((field) => this.persisted(field, values[field])),
        this.persisted('updatedAt', updatedAt),
        this.persisted('rowVersion', rowVersion),
        document.id,
        document.rowVersion,
      ],
    ];

    const entry: DocumentHistory = Object.assign(new DocumentHistory(), {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: updatedAt,
      rowVersion,
      changes,
    });
    const driver = this.dataSource.driver;
    const history: SqlStatement = [
      this.statements.insertHistory,
      this.historyEntries.metadata.columns.map((column) =>
        driver.preparePersistentValue(column.getEntityValue(entry), column),
      ),
    ];
    return { update, history, updated: Object.assign(new Document(), document, values, { updatedAt, rowVersion }) };
  }

  /** The database name of a `documents` column. */
  private column(property: keyof Document): string {
    return this.documents.metadata.findColumnWithPropertyName(property)!.databaseName;
  }

  /** A value in the form the driver stores the column. */
  private persisted(property: keyof Document, value: unknown): unknown {
    return persistedValue(this.documents.metadata, this.dataSource.driver, property, value);
  }

  private hydrate(row: Record<string, unknown>): Document {
    return entityFromRow(this.documents.metadata, this.dataSource.driver, row) as Document;
  }
}

function stale(document: Document): ApiError {
  return new ApiError(
    'precondition_failed',
    `If-Match does not match the document's current ETag ${etagOf(document)}; fetch it again and retry.`,
  );
}
