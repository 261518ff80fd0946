import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
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
 *
 * Unknown keys are checked here, on the value as it arrived, before Nest and class-transformer
 * see it: Nest strips "__proto__" and "constructor" keys, class-transformer skips keys that name
 * an inherited method ("toString", "valueOf", "hasOwnProperty", ...), and class-validator's
 * whitelist looks names up in a plain object, so all of them used to pass unnoticed.
 * Top-level keys only: nested DTOs (none yet) would need the same check one level down.
 */
class StrictValidationPipe extends ValidationPipe {
  private readonly declared = new Map<Function, Set<string>>();

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
    }
    return super.transform(value, metadata);
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

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
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
