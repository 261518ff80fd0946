import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { hasLoneSurrogate } from '../text/unicode.js';

export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonShape {
  depth: number;
  forbiddenKey?: string;
  /** Where the first string or key that is not well-formed UTF-16 sits, e.g. "metadata.notes[2]". */
  illFormedText?: { path: string; inKey: boolean };
}

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

function pathOf(frame: Frame | undefined): string {
  const parts: (string | number)[] = [];
  for (let at = frame; at?.key !== undefined; at = at.parent) parts.unshift(at.key);
  return parts.map((part, index) => (typeof part === 'number' ? `[${part}]` : index ? `.${part}` : part)).join('');
}

/**
 * Measures nesting depth iteratively (no recursion, so hostile input cannot overflow the
 * stack), finds keys that could pollute prototypes and strings or keys with lone surrogates.
 * A scalar has depth 0, {} or [] 1.
 */
export function inspectJson(value: unknown, stopAboveDepth = Number.POSITIVE_INFINITY): JsonShape {
  let maxDepth = 0;
  const stack: Frame[] = [{ value, depth: 1, key: undefined, parent: undefined }];
  while (stack.length) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      if (hasLoneSurrogate(current)) return { depth: maxDepth, illFormedText: { path: pathOf(frame), inKey: false } };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const depth = frame.depth;
    maxDepth = Math.max(maxDepth, depth);
    if (maxDepth > stopAboveDepth) return { depth: maxDepth };
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        stack.push({ value: current[index], depth: depth + 1, key: index, parent: frame });
      }
    } else {
      for (const key of Object.keys(current)) {
        if (FORBIDDEN_KEYS.has(key)) return { depth: maxDepth, forbiddenKey: key };
        if (hasLoneSurrogate(key)) return { depth: maxDepth, illFormedText: { path: pathOf(frame), inKey: true } };
        stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1, key, parent: frame });
      }
    }
  }
  return { depth: maxDepth };
}

/** The validation sentence for a lone surrogate found by inspectJson, naming where it is below root. */
export function describeIllFormedText(found: { path: string; inKey: boolean }, root = ''): string {
  const where = !root
    ? found.path
    : !found.path
      ? root
      : found.path.startsWith('[')
        ? root + found.path
        : `${root}.${found.path}`;
  return found.inKey
    ? `${where} must not have keys that contain unpaired UTF-16 surrogates (ill-formed Unicode)`
    : `${where} must not contain unpaired UTF-16 surrogates (ill-formed Unicode)`;
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
  if (shape.illFormedText) return describeIllFormedText(shape.illFormedText, 'metadata');
  if (shape.depth > limits.maxDepth) return `metadata must be nested at most ${limits.maxDepth} levels deep`;
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > limits.maxBytes) return `metadata must be at most ${limits.maxBytes} bytes as JSON, got ${bytes}`;
  return undefined;
}
