import {
  ValidationPipe,
  type ArgumentMetadata,
  type ValidationError,
  type ValidationPipeOptions,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/error-codes.js';
import { memoizeValidationRules } from '../validation/validation-metadata-cache.js';

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      prefix ? message.replace(error.property, path) : message,
    );
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/**
 * The one global pipe: DTOs are the single source of validation. Unknown fields are refused,
 * nothing is converted implicitly, and every failure becomes one validation_failed sentence.
 *
 * Unknown keys are checked here, on the value as it arrived, before Nest and class-transformer
 * see it: Nest strips "__proto__" and "constructor" keys, class-transformer skips keys that name
 * an inherited method ("toString", "valueOf", "hasOwnProperty", ...), and class-validator's
 * whitelist looks names up in a plain object, so all of them used to pass unnoticed.
 * Top-level keys only: nested DTOs (none yet) would need the same check one level down.
 */
class StrictValidationPipe extends ValidationPipe {
  private readonly declared = new Map<Function, Set<string>>();
  private readonly validQueries = new Map<Function, LRUCache<string, object>>();

  constructor(
    options: ValidationPipeOptions,
    private readonly onlyCheckedRequestValues: boolean,
  ) {
    super(options);
  }

  // Nest walks every value three times before validating it: to close the gaps of sparse arrays,
  // to strip "__proto__" and "constructor" keys, and to find binary values. The values the
  // app-wide pipe sees cannot hold any of those: a body is JSON (any other media type is refused
  // before it is read, rejectBeforeBody), JSON has no sparse arrays or binary values, and the body
  // guard (invalidBody) has already refused those keys at any depth; a query is flat strings whose
  // names are checked here first. So that pipe skips the walks (~30 µs of an update's CPU profile);
  // a pipe for values built another way (multipart fields) keeps them.
  protected override closeArrayGaps(value: unknown): void {
    if (!this.onlyCheckedRequestValues) super.closeArrayGaps(value);
  }

  protected override stripProtoKeys(value: unknown): void {
    if (!this.onlyCheckedRequestValues) super.stripProtoKeys(value);
  }

  protected override findNestedBinaryValues(
    object: unknown,
    metadataCache?: Map<unknown, unknown[]>,
  ): ValidationError[] {
    return this.onlyCheckedRequestValues ? [] : super.findNestedBinaryValues(object, metadataCache);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if ((type === 'body' || type === 'query') && typeof metatype === 'function' && isObject(value)) {
      const known = this.declaredProperties(metatype);
      if (known.size > 0) {
        const unknown = Object.keys(value).filter((key) => !known.has(key));
        if (unknown.length) {
          throw new ApiError('validation_failed', unknown.map((key) => `property ${key} should not exist`).join('; '));
        }
      }
      if (type === 'query') return this.validQuery(value, metadata, metatype);
    }
    return super.transform(value, metadata);
  }

  /**
   * Query DTOs are flat (strings, or arrays of strings for a repeated parameter) and their rules are
   * pure functions of that value, so a query string that validated once validates the same way
   * again: its validated DTO is kept (a few hundred per DTO) and each request gets a copy. Running
   * class-transformer and class-validator costs a list request about a seventh of its CPU, and most
   * requests ask for the same few pages. Refused queries are not kept; they throw as before.
   */
  private async validQuery(value: object, metadata: ArgumentMetadata, metatype: Function): Promise<unknown> {
    const key = flatKey(value);
    if (key === undefined) return super.transform(value, metadata);
    let valid = this.validQueries.get(metatype);
    if (!valid) this.validQueries.set(metatype, (valid = new LRUCache({ max: 500 })));
    const known = valid.get(key);
    if (known) return copyOf(known);
    const dto = (await super.transform(value, metadata)) as object;
    valid.set(key, copyOf(dto));
    return dto;
  }

  private declaredProperties(metatype: Function): Set<string> {
    let known = this.declared.get(metatype);
    if (!known) {
      const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', false, false);
      known = new Set(rules.map((rule) => rule.propertyName));
      this.declared.set(metatype, known);
    }
    return known;
  }
}

/** The cache key of a flat query (strings and arrays of strings only, at most 2 KiB); undefined otherwise. */
function flatKey(query: object): string | undefined {
  for (const item of Object.values(query)) {
    if (typeof item === 'string') continue;
    if (Array.isArray(item) && item.every((element) => typeof element === 'string')) continue;
    return undefined;
  }
  const key = JSON.stringify(query);
  return key.length <= 2048 ? key : undefined;
}

/** A validated query DTO for one request: its own object and arrays (the values are primitives). */
function copyOf<T extends object>(dto: T): T {
  const copy = Object.create(Object.getPrototypeOf(dto) as object) as Record<string, unknown>;
  for (const [name, item] of Object.entries(dto)) copy[name] = Array.isArray(item) ? [...item] : item;
  return copy as T;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `checkedRequestValues`: the app-wide pipe, whose values come from requests that the hooks of
 * app.setup.ts have already checked (JSON bodies, flat queries). false: values built another way,
 * e.g. from multipart fields.
 */
export function createValidationPipe(options: { checkedRequestValues: boolean }): ValidationPipe {
  memoizeValidationRules();
  return new StrictValidationPipe(
    {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) =>
        new ApiError('validation_failed', flatten(errors).join('; ') || 'The request is not valid.'),
    },
    options.checkedRequestValues,
  );
}
