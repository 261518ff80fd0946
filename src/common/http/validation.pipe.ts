import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/error-codes.js';

/** Every constraint message of a validation failure, nested properties named by their path. */
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
 * Nest's ValidationPipe as configured once for the whole service; failures become validation_failed.
 * The argument is ignored (kept so that callers written for the former signature still compile).
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
