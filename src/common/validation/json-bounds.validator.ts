import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonShape {
  depth: number;
  forbiddenKey?: string;
}

/**
 * Measures nesting depth iteratively (no recursion, so hostile input cannot overflow the
 * stack) and finds keys that could pollute prototypes. A scalar has depth 0, {} or [] 1.
 */
export function inspectJson(value: unknown, stopAboveDepth = Number.POSITIVE_INFINITY): JsonShape {
  let maxDepth = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    maxDepth = Math.max(maxDepth, depth);
    if (maxDepth > stopAboveDepth) return { depth: maxDepth };
    if (Array.isArray(current)) {
      for (const item of current) stack.push([item, depth + 1]);
    } else {
      for (const key of Object.keys(current)) {
        if (FORBIDDEN_KEYS.has(key)) return { depth: maxDepth, forbiddenKey: key };
        stack.push([(current as Record<string, unknown>)[key], depth + 1]);
      }
    }
  }
  return { depth: maxDepth };
}

/** Bounds a free-form JSON object: serialized size, nesting depth, and no prototype keys. */
export function JsonBounds(limits: { maxBytes: number; maxDepth: number }, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'jsonBounds',
      target: object.constructor,
      propertyName,
      constraints: [limits],
      options,
      validator: {
        validate: (value: unknown) => describeProblem(value, limits) === undefined,
        // Only called on failure, so recomputing here keeps the happy path to one pass.
        defaultMessage: (args: ValidationArguments) =>
          describeProblem(args.value, limits) ?? `${args.property} is out of bounds`,
      },
    });
}

function describeProblem(value: unknown, limits: { maxBytes: number; maxDepth: number }): string | undefined {
  if (value === null || typeof value !== 'object') return undefined; // type rules report this
  const shape = inspectJson(value, limits.maxDepth);
  if (shape.forbiddenKey) return `metadata must not contain the key "${shape.forbiddenKey}"`;
  if (shape.depth > limits.maxDepth) return `metadata must be nested at most ${limits.maxDepth} levels deep`;
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > limits.maxBytes) return `metadata must be at most ${limits.maxBytes} bytes as JSON, got ${bytes}`;
  return undefined;
}
