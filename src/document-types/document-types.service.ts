import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail, changedFields } from '../audit/audit-trail.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { identityKey } from '../common/text/identity-key.js';
import {
  DocumentTypeNameTakenError,
  DocumentTypeReferencedError,
  DocumentTypesRepository,
} from './document-types.repository.js';
import { DocumentType } from './entities/document-type.entity.js';
import type { RetentionPolicy } from './retention-policy.js';

export interface DocumentTypeInput {
  name?: string;
  description?: string;
  /** Undefined keeps the current policy; null removes it. */
  retention?: RetentionPolicy | null;
}

const AUDITED_FIELDS = ['name', 'description', 'retention'];

/** A type's retention policy, or null when it declares none. */
export function retentionOf(type: DocumentType): RetentionPolicy | null {
  if (type.retentionDays === null || type.retentionFrom === null || type.retentionAction === null) return null;
  return { days: type.retentionDays, from: type.retentionFrom, action: type.retentionAction };
}

/** The columns that store a policy, with who set it. */
function retentionColumns(policy: RetentionPolicy | null, setBy: string | null) {
  return {
    retentionDays: policy?.days ?? null,
    retentionFrom: policy?.from ?? null,
    retentionAction: policy?.action ?? null,
    retentionSetBy: policy ? setBy : null,
  };
}

/** The audited view of a type: its fields plus the retention policy as one value. */
const audited = (type: DocumentType) => ({
  name: type.name,
  description: type.description,
  retention: retentionOf(type),
});

/** Document types: names unique ignoring case and Unicode form; a type in use cannot be deleted. */
@Injectable()
export class DocumentTypesService {
  constructor(
    private readonly types: DocumentTypesRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
  ) {}

  list(): Promise<DocumentType[]> {
    return this.types.findAll();
  }

  create(
    input: DocumentTypeInput & { name: string; description: string },
    context: AuditContext,
  ): Promise<DocumentType> {
    const type = Object.assign(new DocumentType(), {
      id: randomUUID(),
      name: input.name,
      description: input.description,
      createdAt: new Date(),
      ...retentionColumns(input.retention ?? null, context.actorId),
    });
    return this.write(async (tx) => {
      await this.assertNameFree(tx, type.name, type.id);
      await this.types.save(tx, type);
      await this.audit.record(tx, context, {
        action: 'document_type.created',
        targetType: 'document_type',
        targetId: type.id,
        changes: changedFields({}, audited(type), AUDITED_FIELDS),
      });
      return type;
    });
  }

  update(id: string, input: DocumentTypeInput, context: AuditContext): Promise<DocumentType> {
    return this.write(async (tx) => {
      const before = await this.types.findById(id, tx);
      if (!before) throw notFound(id);
      const name = input.name ?? before.name;
      const after = Object.assign(new DocumentType(), before, {
        name,
        description: input.description ?? before.description,
        ...(input.retention === undefined ? {} : retentionColumns(input.retention, context.actorId)),
      });
      const changes = changedFields(audited(before), audited(after), AUDITED_FIELDS);
      if (Object.keys(changes).length === 0) return before;
      if (changes.name) await this.assertNameFree(tx, name, id);
      await this.types.save(tx, after);
      await this.audit.record(tx, context, {
        action: 'document_type.updated',
        targetType: 'document_type',
        targetId: id,
        changes,
      });
      return after;
    });
  }

  async delete(id: string, context: AuditContext): Promise<void> {
    await this.write(async (tx) => {
      const type = await this.types.findById(id, tx);
      if (!type) throw notFound(id);
      const documents = await this.types.countDocuments(tx, id);
      if (documents > 0) throw inUse(type.name, documents);
      await this.types.delete(tx, id);
      await this.audit.record(tx, context, {
        action: 'document_type.deleted',
        targetType: 'document_type',
        targetId: id,
        changes: changedFields(audited(type), {}, AUDITED_FIELDS),
      });
    });
  }

  private async assertNameFree(tx: Tx, name: string, exceptId: string): Promise<void> {
    const key = identityKey(name);
    const existing = await this.types.names(tx);
    if (existing.some((type) => type.id !== exceptId && identityKey(type.name) === key)) throw nameConflict();
  }

  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.transactions.run(work);
    } catch (error) {
      if (error instanceof DocumentTypeNameTakenError) throw nameConflict();
      if (error instanceof DocumentTypeReferencedError) throw inUse('', 0);
      throw error;
    }
  }
}

function notFound(id: string): ApiError {
  return new ApiError('document_type_not_found', `No document type has the id ${id}.`);
}

function nameConflict(): ApiError {
  return new ApiError('conflict', 'A document type with this name already exists (names are compared ignoring case).');
}

function inUse(name: string, documents: number): ApiError {
  return new ApiError(
    'document_type_in_use',
    documents > 0
      ? `The document type ${name} is used by ${documents} document(s).`
      : 'The document type is used by documents.',
  );
}
