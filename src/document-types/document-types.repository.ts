import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { identityKey } from '../common/text/identity-key.js';
import { driverCode, isUniqueViolation } from '../database/database-errors.js';
import type { Tx } from '../database/transactions.js';
import { DocumentType } from './entities/document-type.entity.js';

/** A unique index refused a name (another writer took it after the check). */
export class DocumentTypeNameTakenError extends Error {
  override name = 'DocumentTypeNameTakenError';
}

/** A document still references the type (a writer added one after the check). */
export class DocumentTypeReferencedError extends Error {
  override name = 'DocumentTypeReferencedError';
}

/** Every statement about document types. */
@Injectable()
export class DocumentTypesRepository {
  constructor(@InjectRepository(DocumentType) private readonly types: Repository<DocumentType>) {}

  findAll(): Promise<DocumentType[]> {
    return this.types.find({ order: { name: 'ASC' } });
  }

  findById(id: string, tx: Tx = this.types.manager): Promise<DocumentType | null> {
    return tx.getRepository(DocumentType).findOneBy({ id });
  }

  /** Every type's id and name: types are few, and the service compares names by identityKey. */
  names(tx: Tx): Promise<Pick<DocumentType, 'id' | 'name'>[]> {
    return tx.getRepository(DocumentType).find({ select: { id: true, name: true } });
  }

  /** Inserts or updates the type, with nameKey computed from its name here, the one place that writes types. */
  async save(tx: Tx, type: DocumentType): Promise<void> {
    type.nameKey = identityKey(type.name);
    try {
      await tx.getRepository(DocumentType).save(type);
    } catch (error) {
      if (isUniqueViolation(error)) throw new DocumentTypeNameTakenError();
      throw error;
    }
  }

  /** How many documents have this type (the documents table is the documents feature's; only counted here). */
  async countDocuments(tx: Tx, id: string): Promise<number> {
    const row = await tx
      .createQueryBuilder()
      .select('COUNT(*)', 'n')
      .from('documents', 'd')
      .where('d.documentTypeId = :id', { id })
      .getRawOne<{ n: number | string }>();
    return Number(row?.n ?? 0);
  }

  async delete(tx: Tx, id: string): Promise<void> {
    try {
      await tx.getRepository(DocumentType).delete({ id });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new DocumentTypeReferencedError();
      throw error;
    }
  }
}

function isForeignKeyViolation(error: unknown): boolean {
  const code = driverCode(error);
  return (
    code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_ROW_IS_REFERENCED' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
  );
}
