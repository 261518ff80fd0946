import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/error-codes.js';
import type { Tx } from '../database/transactions.js';

export type FieldValues = Record<string, unknown>;

/** A field filter or sort of the list, resolved by the fields feature: which typed column of which field. */
export interface FieldTerm {
  fieldId: string;
  column: 'textValue' | 'numberValue';
}

export interface FieldListTerms {
  filters: (FieldTerm & { op: '=' | '>=' | '<='; value: string | number })[];
  sort?: FieldTerm & { descending: boolean };
}

/** What the custom fields feature (src/custom-fields) answers the documents feature. */
export interface DocumentFieldsHandler {
  /**
   * A document's values once a write applies: `current` (null: a new document) with `given` merged
   * in (null removes a value); with `typeChanged`, re-checked against `documentTypeId`'s fields. Throws
   * validation_failed naming the field.
   */
  resolve(
    manager: EntityManager | undefined,
    documentTypeId: string,
    current: FieldValues | null,
    given: FieldValues | undefined,
    typeChanged: boolean,
  ): Promise<FieldValues>;
  /** Writes the values' typed rows (the list's filters and sorts) in the change's transaction. */
  store(tx: Tx, documentId: string, documentTypeId: string, values: FieldValues): Promise<void>;
  /** The list's `field.<key>` parameters and `sort=field.<key>` of one type, resolved; validation_failed otherwise. */
  listTerms(documentTypeId: string, parameters: Record<string, string>, sort?: string): Promise<FieldListTerms>;
}

/** Where the fields feature registers itself (onModuleInit), so documents never import it. */
@Injectable()
export class DocumentFields {
  private handler?: DocumentFieldsHandler;

  register(handler: DocumentFieldsHandler): void {
    this.handler = handler;
  }

  async resolve(
    manager: EntityManager | undefined,
    documentTypeId: string,
    current: FieldValues | null,
    given: FieldValues | undefined,
    typeChanged = false,
  ): Promise<FieldValues> {
    if (this.handler) return this.handler.resolve(manager, documentTypeId, current, given, typeChanged);
    const [unknown] = Object.keys(given ?? {});
    if (unknown !== undefined) throw new ApiError('validation_failed', `fields.${unknown}: no such field.`);
    return current ?? {};
  }

  async store(tx: Tx, documentId: string, documentTypeId: string, values: FieldValues): Promise<void> {
    await this.handler?.store(tx, documentId, documentTypeId, values);
  }

  async listTerms(
    documentTypeId: string | undefined,
    parameters: Record<string, string>,
    sort?: string,
  ): Promise<FieldListTerms | undefined> {
    if (Object.keys(parameters).length === 0 && sort === undefined) return undefined;
    if (documentTypeId === undefined) {
      throw new ApiError('validation_failed', 'field.<key> filters and sorts need documentTypeId (keys are per type).');
    }
    if (!this.handler) throw new ApiError('validation_failed', 'No document type declares fields.');
    return this.handler.listTerms(documentTypeId, parameters, sort);
  }
}
