import { ApiError } from '../common/errors/error-codes.js';
import { DocumentFieldValue } from './entities/document-field-value.entity.js';
import type { DocumentField, FieldType } from './entities/document-field.entity.js';

/** A field key: what `fields.<key>`, `field.<key>=` and `sort=field.<key>` name. */
export const FIELD_KEY = /^[a-z][a-zA-Z0-9_]{0,63}$/;
export const FIELD_LIMITS = {
  textMax: 500,
  optionsMax: 100,
  optionMax: 100,
  labelMax: 100,
  fieldsPerType: 50,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The types whose values the list can compare as ranges. */
export const RANGE_TYPES: readonly FieldType[] = ['number', 'date'];

export function invalidField(key: string, problem: string): ApiError {
  return new ApiError('validation_failed', `fields.${key} ${problem}`);
}

function isDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const codePoints = (value: string) => Array.from(value).length;

/** A value sent for `field`, checked and in its stored form (a user id lower-cased); users are checked by the caller. */
export function checkedValue(field: DocumentField, value: unknown): string | number | boolean {
  const { key } = field;
  switch (field.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidField(key, 'must be a number.');
      if (field.min !== null && value < field.min) throw invalidField(key, `must be at least ${field.min}.`);
      if (field.max !== null && value > field.max) throw invalidField(key, `must be at most ${field.max}.`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalidField(key, 'must be true or false.');
      return value;
    case 'date':
      if (typeof value !== 'string' || !isDate(value)) throw invalidField(key, 'must be a date as YYYY-MM-DD.');
      return value;
    case 'select':
      if (typeof value !== 'string' || !(field.options ?? []).includes(value)) {
        throw invalidField(key, `must be one of: ${(field.options ?? []).join(', ')}.`);
      }
      return value;
    case 'user':
      if (typeof value !== 'string' || !UUID.test(value)) throw invalidField(key, 'must be the id of a user.');
      return value.toLowerCase();
    case 'url': {
      if (typeof value !== 'string' || codePoints(value) > FIELD_LIMITS.textMax) {
        throw invalidField(key, `must be an http(s) URL of at most ${FIELD_LIMITS.textMax} characters.`);
      }
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw invalidField(key, 'must be an http or https URL.');
      }
      return value;
    }
    default: {
      // text
      if (typeof value !== 'string') throw invalidField(key, 'must be a string.');
      const length = codePoints(value);
      const max = Math.min(field.max ?? FIELD_LIMITS.textMax, FIELD_LIMITS.textMax);
      if (length > max) throw invalidField(key, `must be at most ${max} characters long.`);
      if (field.min !== null && length < field.min)
        throw invalidField(key, `must be at least ${field.min} characters long.`);
      return value;
    }
  }
}

/** The typed row of a value: numbers and booleans (0/1) in numberValue, the rest as text. */
export function valueRow(documentId: string, field: DocumentField, value: unknown): DocumentFieldValue {
  const numeric = field.type === 'number' || field.type === 'boolean';
  return Object.assign(new DocumentFieldValue(), {
    documentId,
    fieldId: field.id,
    textValue: numeric ? null : String(value),
    numberValue: numeric ? Number(value) : null,
  });
}

/** The column a field's values are compared and sorted in. */
export function valueColumn(field: DocumentField): 'textValue' | 'numberValue' {
  return field.type === 'number' || field.type === 'boolean' ? 'numberValue' : 'textValue';
}

/** A list parameter's text as the field's stored value (`field.<key>=`), or 400. */
export function parameterValue(field: DocumentField, name: string, raw: string): string | number {
  const bad = (expected: string) => new ApiError('validation_failed', `${name} must be ${expected}.`);
  switch (field.type) {
    case 'number': {
      const value = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(value)) throw bad('a number');
      return value;
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw bad('true or false');
      return raw === 'true' ? 1 : 0;
    case 'date':
      if (!isDate(raw)) throw bad('a date as YYYY-MM-DD');
      return raw;
    case 'user':
      if (!UUID.test(raw)) throw bad('a user id');
      return raw.toLowerCase();
    default:
      if (codePoints(raw) > FIELD_LIMITS.textMax) throw bad(`at most ${FIELD_LIMITS.textMax} characters`);
      return raw;
  }
}
