import { ParseUUIDPipe } from '@nestjs/common';
import { ApiError } from '../errors/error-codes.js';

/** Path ids must be UUIDs; anything else is a 400 that names the parameter. */
export const uuidParam = (name: string) =>
  new ParseUUIDPipe({
    exceptionFactory: () => new ApiError('validation_failed', `${name} must be a UUID`),
  });
