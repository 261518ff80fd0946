import type { PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { ApiError } from '../errors/error-codes.js';

/**
 * Ids are UUIDs in any letter case, normalised to lower case (the form stored): MariaDB compares
 * case-insensitively and SQLite does not, so without this an upper-case id found a row on one
 * database and not on the other.
 */
export function normaliseUuid(value: unknown): string | undefined {
  return typeof value === 'string' && isUUID(value, 'all') ? value.toLowerCase() : undefined;
}

class UuidPipe implements PipeTransform<unknown, string> {
  constructor(private readonly name: string) {}

  transform(value: unknown): string {
    const id = normaliseUuid(value);
    if (id === undefined) throw new ApiError('validation_failed', `${this.name} must be a UUID`);
    return id;
  }
}

/** Path ids must be UUIDs (any case, answered in lower case); anything else is a 400 naming the parameter. */
export const uuidParam = (name: string): PipeTransform<unknown, string> => new UuidPipe(name);
