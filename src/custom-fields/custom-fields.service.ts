import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail, changedFields } from '../audit/audit-trail.js';
import type { AuditChanges } from '../audit/entities/audit-event.entity.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { DocumentFields, type FieldListTerms, type FieldValues } from '../documents/document-fields.js';
import { CustomFieldsRepository, FieldKeyTakenError } from './custom-fields.repository.js';
import { DocumentField, type FieldType } from './entities/document-field.entity.js';
import {
  checkedValue,
  FIELD_LIMITS,
  invalidField,
  parameterValue,
  RANGE_TYPES,
  valueColumn,
  valueRow,
} from './field-values.js';

export interface FieldDefinitionInput {
  label?: string;
  required?: boolean;
  options?: string[] | null;
  min?: number | null;
  max?: number | null;
}

const AUDITED = ['key', 'label', 'type', 'required', 'options', 'min', 'max'];
const audited = (field: DocumentField) =>
  Object.fromEntries(AUDITED.map((name) => [name, field[name as keyof DocumentField]]));
const RANGE_PARAMETER = /^([^[\]]+)(?:\[(gte|lte)\])?$/;

/**
 * Typed custom fields per document type: their definitions (documentTypes:manage), and, registered
 * with DocumentFields, the checks of documents' values, their typed rows and the list's field terms.
 */
@Injectable()
export class CustomFieldsService implements OnModuleInit {
  constructor(
    private readonly repository: CustomFieldsRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly documentFields: DocumentFields,
  ) {}

  onModuleInit(): void {
    this.documentFields.register({
      resolve: (manager, typeId, current, given, typeChanged) =>
        this.resolve(manager, typeId, current, given, typeChanged),
      store: (tx, documentId, typeId, values) => this.store(tx, documentId, typeId, values),
      listTerms: (typeId, parameters, sort) => this.listTerms(typeId, parameters, sort),
    });
  }

  async list(documentTypeId: string): Promise<DocumentField[]> {
    if (!(await this.repository.typeExists(documentTypeId))) throw typeNotFound(documentTypeId);
    return this.repository.fieldsOf(documentTypeId);
  }

  create(
    documentTypeId: string,
    input: FieldDefinitionInput & { key: string; label: string; type: FieldType; required: boolean },
    context: AuditContext,
  ): Promise<DocumentField> {
    const field = Object.assign(new DocumentField(), {
      id: randomUUID(),
      documentTypeId,
      key: input.key,
      label: input.label,
      type: input.type,
      required: input.required,
      options: input.options ?? null,
      min: input.min ?? null,
      max: input.max ?? null,
      createdAt: new Date(),
    });
    checkDefinition(field);
    return this.write(async (tx) => {
      if (!(await this.repository.typeExists(documentTypeId, tx))) throw typeNotFound(documentTypeId);
      const fields = await this.repository.fieldsOf(documentTypeId, tx);
      if (fields.some((other) => other.key === field.key)) throw keyTaken(field.key);
      if (fields.length >= FIELD_LIMITS.fieldsPerType) {
        throw new ApiError(
          'validation_failed',
          `A document type declares at most ${FIELD_LIMITS.fieldsPerType} fields.`,
        );
      }
      await this.repository.saveField(tx, field);
      await this.record(tx, context, 'document_field.created', field, changedFields({}, audited(field), AUDITED));
      return field;
    });
  }

  update(
    documentTypeId: string,
    key: string,
    input: FieldDefinitionInput,
    context: AuditContext,
  ): Promise<DocumentField> {
    return this.write(async (tx) => {
      const before = await this.found(tx, documentTypeId, key);
      const after = Object.assign(new DocumentField(), before);
      for (const name of ['label', 'required', 'options', 'min', 'max'] as const) {
        if (input[name] === null && (name === 'label' || name === 'required')) {
          throw new ApiError('validation_failed', `${name} cannot be null.`);
        }
        if (input[name] !== undefined) Object.assign(after, { [name]: input[name] });
      }
      checkDefinition(after);
      const changes = changedFields(audited(before), audited(after), AUDITED);
      if (Object.keys(changes).length === 0) return before;
      await this.repository.saveField(tx, after);
      await this.record(tx, context, 'document_field.updated', after, changes);
      return after;
    });
  }

  async delete(documentTypeId: string, key: string, force: boolean, context: AuditContext): Promise<void> {
    await this.write(async (tx) => {
      const field = await this.found(tx, documentTypeId, key);
      const values = await this.repository.countValues(tx, field.id);
      if (values > 0 && !force) {
        throw new ApiError(
          'document_field_in_use',
          `${values} document(s) hold a value of the field ${key}; delete with ?force=true to remove the values too.`,
        );
      }
      const removed = await this.repository.deleteField(tx, field);
      await this.record(tx, context, 'document_field.deleted', field, {
        ...changedFields(audited(field), {}, AUDITED),
        valuesRemoved: { from: null, to: removed },
      });
    });
  }

  /** DocumentFieldsHandler.resolve: merged, checked values with keys in order. */
  private async resolve(
    manager: EntityManager | undefined,
    documentTypeId: string,
    current: FieldValues | null,
    given: FieldValues | undefined,
    typeChanged: boolean,
  ): Promise<FieldValues> {
    if (typeChanged && !(await this.repository.typeExists(documentTypeId, manager))) {
      throw new ApiError('validation_failed', `documentTypeId: no document type has the id ${documentTypeId}.`);
    }
    const fields = new Map(
      (await this.repository.fieldsOf(documentTypeId, manager)).map((field) => [field.key, field]),
    );
    const values: FieldValues = {};
    // A new type keeps the values of the keys it declares, checked again; other keys are dropped.
    const toCheck = new Set(Object.keys(given ?? {}));
    for (const [key, value] of Object.entries(current ?? {})) {
      if (!typeChanged || fields.has(key)) values[key] = value;
      if (typeChanged && fields.has(key)) toCheck.add(key);
    }
    for (const [key, value] of Object.entries(given ?? {})) {
      if (!fields.has(key)) throw invalidField(key, 'is not a field of the document type.');
      if (value === null) delete values[key];
      else values[key] = value;
    }
    const users: [string, string][] = [];
    for (const key of toCheck) {
      const field = fields.get(key)!;
      if (values[key] === undefined) continue;
      values[key] = checkedValue(field, values[key]);
      if (field.type === 'user') users.push([key, values[key] as string]);
    }
    for (const field of fields.values()) {
      if (field.required && values[field.key] === undefined) throw invalidField(field.key, 'is required.');
    }
    const active = await this.repository.activeUsers(
      users.map(([, id]) => id),
      manager,
    );
    for (const [key, id] of users) if (!active.has(id)) throw invalidField(key, 'must be the id of an active user.');
    return Object.fromEntries(
      Object.keys(values)
        .sort()
        .map((key) => [key, values[key]]),
    );
  }

  private async store(tx: Tx, documentId: string, documentTypeId: string, values: FieldValues): Promise<void> {
    const fields = new Map((await this.repository.fieldsOf(documentTypeId, tx)).map((field) => [field.key, field]));
    const rows = Object.entries(values).flatMap(([key, value]) => {
      const field = fields.get(key);
      return field ? [valueRow(documentId, field, value)] : [];
    });
    await this.repository.replaceValues(tx, documentId, rows);
  }

  private async listTerms(
    documentTypeId: string,
    parameters: Record<string, string>,
    sort?: string,
  ): Promise<FieldListTerms> {
    const fields = new Map((await this.repository.fieldsOf(documentTypeId)).map((field) => [field.key, field]));
    const fieldOf = (key: string, name: string) => {
      const field = fields.get(key);
      if (!field) throw new ApiError('validation_failed', `${name}: the document type has no field ${key}.`);
      return field;
    };
    const terms: FieldListTerms = { filters: [] };
    for (const [rest, raw] of Object.entries(parameters)) {
      const name = `field.${rest}`;
      const match = RANGE_PARAMETER.exec(rest);
      if (!match)
        throw new ApiError('validation_failed', `${name} is not field.<key>, field.<key>[gte] or field.<key>[lte].`);
      const field = fieldOf(match[1], name);
      const bound = match[2] as 'gte' | 'lte' | undefined;
      if (bound && !RANGE_TYPES.includes(field.type)) {
        throw new ApiError('validation_failed', `${name}: ranges apply to number and date fields only.`);
      }
      terms.filters.push({
        fieldId: field.id,
        column: valueColumn(field),
        op: bound === 'gte' ? '>=' : bound === 'lte' ? '<=' : '=',
        value: parameterValue(field, name, raw),
      });
    }
    if (sort !== undefined) {
      const field = fieldOf(sort.replace(/^-?field\./, ''), `sort=${sort}`);
      terms.sort = { fieldId: field.id, column: valueColumn(field), descending: sort.startsWith('-') };
    }
    return terms;
  }

  private async found(tx: Tx, documentTypeId: string, key: string): Promise<DocumentField> {
    const field = await this.repository.findField(tx, documentTypeId, key);
    if (field) return field;
    if (!(await this.repository.typeExists(documentTypeId, tx))) throw typeNotFound(documentTypeId);
    throw new ApiError('document_field_not_found', `The document type has no field ${key}.`);
  }

  private record(
    tx: Tx,
    context: AuditContext,
    action: string,
    field: DocumentField,
    changes: AuditChanges,
  ): Promise<unknown> {
    return this.audit.record(tx, context, {
      action,
      targetType: 'document_type',
      targetId: field.documentTypeId,
      changes: { field: { from: null, to: field.key }, ...changes },
    });
  }

  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.transactions.run(work);
    } catch (error) {
      if (error instanceof FieldKeyTakenError) throw keyTaken('');
      throw error;
    }
  }
}

/** The rules of a definition that one property alone cannot say (options for select, bounds for number and text). */
function checkDefinition(field: DocumentField): void {
  const invalid = (details: string) => new ApiError('validation_failed', details);
  if (field.type === 'select') {
    if (!field.options?.length) throw invalid('options: a select field needs at least one option.');
    if (new Set(field.options).size !== field.options.length) throw invalid('options must not repeat a value.');
  } else if (field.options !== null) {
    throw invalid('options: only a select field has options.');
  }
  if (field.type !== 'number' && field.type !== 'text' && (field.min !== null || field.max !== null)) {
    throw invalid('min/max: only number (the value) and text (its length) fields have bounds.');
  }
  if (field.type === 'text') {
    for (const [name, bound] of [
      ['min', field.min],
      ['max', field.max],
    ] as const) {
      if (bound !== null && (!Number.isInteger(bound) || bound < 0 || bound > FIELD_LIMITS.textMax)) {
        throw invalid(`${name}: a text field's bound is a length, an integer from 0 to ${FIELD_LIMITS.textMax}.`);
      }
    }
  }
  if (field.min !== null && field.max !== null && field.min > field.max) throw invalid('min must not exceed max.');
}

function typeNotFound(id: string): ApiError {
  return new ApiError('document_type_not_found', `No document type has the id ${id}.`);
}

function keyTaken(key: string): ApiError {
  return new ApiError('conflict', `The document type already has a field${key ? ` ${key}` : ' with this key'}.`);
}
