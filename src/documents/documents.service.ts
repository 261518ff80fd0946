import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
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

@Injectable()
export class DocumentsService {
  constructor(
    @InjectRepository(Document) private readonly documents: Repository<Document>,
    @InjectRepository(DocumentHistory) private readonly historyEntries: Repository<DocumentHistory>,
    private readonly policy: DocumentAccessPolicy,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Applies the given fields (omitted ones keep their value) with a conditional UPDATE on the
   * row version plus a history row, in one transaction. With If-Match a stale version is 412.
   * Without it, a lost race falls back to a locked read-modify-write, so the update always
   * lands whole and never becomes a 412 the client did not ask for.
   */
  async update(
    documentId: string,
    input: UpdateDocumentDto,
    user: AuthenticatedUser,
    ifMatch?: string,
  ): Promise<Document> {
    const document = await this.findUpdatable(this.documents.manager, documentId, user);
    if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, document)) throw stale(document);
    const changes = this.diff(document, input);
    if (Object.keys(changes).length === 0) return document;

    const updated = await this.dataSource.transaction((manager) =>
      this.writeIfUnchanged(manager, document, changes, user),
    );
    if (updated) return updated;
    if (ifMatch !== undefined) throw stale(document);
    return this.updateLocked(documentId, input, user);
  }

  /** The contended path: read the row FOR UPDATE (MySQL; SQLite serialises writers) and write. */
  private updateLocked(documentId: string, input: UpdateDocumentDto, user: AuthenticatedUser): Promise<Document> {
    return this.dataSource.transaction(async (manager) => {
      const document = await this.findUpdatable(manager, documentId, user, true);
      const changes = this.diff(document, input);
      if (Object.keys(changes).length === 0) return document;
      const updated = await this.writeIfUnchanged(manager, document, changes, user);
      if (!updated) throw new Error('A locked document changed under its lock');
      return updated;
    });
  }

  async history(documentId: string, user: AuthenticatedUser): Promise<DocumentHistory[]> {
    await this.findUpdatable(this.documents.manager, documentId, user);
    return this.historyEntries.find({
      where: { documentId },
      order: { changedAt: 'DESC', rowVersion: 'DESC' },
      take: 500,
    });
  }

  private async findUpdatable(
    manager: EntityManager,
    documentId: string,
    user: AuthenticatedUser,
    forUpdate = false,
  ): Promise<Document> {
    const lock = forUpdate && manager.connection.options.type === 'mysql';
    const document = await manager.findOne(Document, {
      where: { id: documentId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!document) throw new ApiError('document_not_found', `No document has the id ${documentId}.`);
    if (!this.policy.canUpdate(user, document)) {
      throw new ApiError(
        'forbidden',
        'Only the uploader of this document or a user whose role grants documents:update may change it.',
      );
    }
    return document;
  }

  private diff(document: Document, input: UpdateDocumentDto): Partial<Record<EditableField, FieldChange>> {
    const next: Partial<Pick<Document, EditableField>> = {
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

  private async writeIfUnchanged(
    manager: EntityManager,
    document: Document,
    changes: Partial<Record<EditableField, FieldChange>>,
    user: AuthenticatedUser,
  ): Promise<Document | undefined> {
    const values = Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, change.to])) as Partial<
      Pick<Document, EditableField>
    >;
    // updatedAt strictly increases even when two writes land in the same millisecond.
    const updatedAt = new Date(Math.max(Date.now(), document.updatedAt.getTime() + 1));
    const rowVersion = document.rowVersion + 1;

    // save() with @VersionColumn does not check the version on write; this UPDATE does.
    const result = await manager
      .createQueryBuilder()
      .update(Document)
      .set({ ...values, updatedAt, rowVersion } as QueryDeepPartialEntity<Document>)
      .where('id = :id AND rowVersion = :rowVersion', { id: document.id, rowVersion: document.rowVersion })
      .execute();
    if (result.affected !== 1) return undefined;
    await manager.insert(DocumentHistory, {
      id: randomUUID(),
      documentId: document.id,
      changedBy: user.id,
      changedAt: updatedAt,
      rowVersion,
      changes,
    } as QueryDeepPartialEntity<DocumentHistory>);
    return Object.assign(document, values, { updatedAt, rowVersion });
  }
}

function stale(document: Document): ApiError {
  return new ApiError(
    'precondition_failed',
    `If-Match does not match the document's current ETag ${etagOf(document)}; fetch it again and retry.`,
  );
}
