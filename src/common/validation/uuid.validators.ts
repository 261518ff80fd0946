import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsUUID, type ValidationOptions } from 'class-validator';
import { normaliseUuid } from '../pipes/uuid.pipe.js';

/**
 * A UUID query or body field: any letter case is accepted and lower-cased, the same rule as
 * uuidParam() for path ids, so the answer never depends on the database's collation.
 */
export function IsUuidField(options?: ValidationOptions) {
  return applyDecorators(
    Transform(({ value }) => normaliseUuid(value) ?? value),
    IsUUID('all', {
      message: ({ property }) => `${property} must be a UUID`,
      ...options,
    }),
  );
}
