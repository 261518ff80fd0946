import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/error-codes.js';

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
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      new ApiError('validation_failed', flatten(errors).join('; ') || 'The request is not valid.'),
  });
}
