import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { isUniqueViolation } from '../database/database-errors.js';
import type { Tx } from '../database/transactions.js';
import { DocumentType } from '../document-types/entities/document-type.entity.js';
import { Document } from '../documents/entities/document.entity.js';
import { User } from '../users/entities/user.entity.js';
import { DocumentFieldValue } from './entities/document-field-value.entity.js';
import { DocumentField } from './entities/document-field.entity.js';

/** A unique index refused a key (another writer declared it after the check). */
export class FieldKeyTakenError extends Error {
  override name = 'FieldKeyTakenError';
}

/** Every statement of custom fields: their definitions, their typed values, and documents.fields on a forced delete. */
@Injectable()
export class CustomFieldsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A type's fields, in the order they were declared. */
  fieldsOf(documentTypeId: string, manager: EntityManager = this.dataSource.manager): Promise<DocumentField[]> {
    return manager.find(DocumentField, { where: { documentTypeId }, order: { createdAt: 'ASC', key: 'ASC' } });
  }

  findField(tx: Tx, documentTypeId: string, key: string): Promise<DocumentField | null> {
    return tx.findOneBy(DocumentField, { documentTypeId, key });
  }

  async typeExists(documentTypeId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return (await manager.countBy(DocumentType, { id: documentTypeId })) > 0;
  }

  /** Those of `ids` that name active users. */
  async activeUsers(ids: string[], manager: EntityManager = this.dataSource.manager): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await manager.find(User, { select: { id: true }, where: { id: In(ids), isActive: true } });
    return new Set(rows.map((row) => row.id));
  }

  async saveField(tx: Tx, field: DocumentField): Promise<void> {
    try {
      await tx.save(DocumentField, field);
    } catch (error) {
      if (isUniqueViolation(error)) throw new FieldKeyTakenError();
      throw error;
    }
  }

  /** How many documents hold a value of the field. */
  countValues(tx: Tx, fieldId: string): Promise<number> {
    return tx.countBy(DocumentFieldValue, { fieldId });
  }

  /** Replaces a document's typed values (FK cascades remove them with the document or the field). */
  async replaceValues(tx: Tx, documentId: string, rows: DocumentFieldValue[]): Promise<void> {
    await tx.delete(DocumentFieldValue, { documentId });
    if (rows.length) await tx.createQueryBuilder().insert().into(DocumentFieldValue).values(rows).execute();
  }

  /**
   * A forced delete: removes `key` from documents.fields of every document holding a value of the
   * field (a new rowVersion, so ETags change), then the field (its values cascade).
   */
  async deleteField(tx: Tx, field: DocumentField): Promise<number> {
    const holders = await tx.find(DocumentFieldValue, { select: { documentId: true }, where: { fieldId: field.id } });
    const ids = holders.map((row) => row.documentId);
    for (let i = 0; i < ids.length; i += 500) {
      const documents = await tx.find(Document, {
        select: { id: true, fields: true, rowVersion: true },
        where: { id: In(ids.slice(i, i + 500)) },
      });
      for (const document of documents) {
        const { [field.key]: _removed, ...rest } = document.fields ?? {};
        await tx
          .createQueryBuilder()
          .update(Document)
          .set({ fields: rest, rowVersion: () => 'rowVersion + 1' } as QueryDeepPartialEntity<Document>)
          .where('id = :id', { id: document.id })
          .execute();
      }
    }
    await tx.delete(DocumentField, { id: field.id });
    return ids.length;
  }
}
