import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { codePointLength } from '../text/unicode.js';

// C0 controls, DEL, C1 controls and the bidi embedding/override/isolate marks that can
// make text display differently from what it is (e.g. U+202E reverses what follows).
// oxlint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_STRICT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
// oxlint-disable-next-line no-control-regex
const FORBIDDEN_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

function textRule(name: string, pattern: RegExp, explanation: string, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !pattern.test(value),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property}${options?.each ? ' entries' : ''} must not contain ${explanation}`,
      },
    });
}

/** Rejects control characters and bidi overrides (single-line fields: title, tag, username). */
export const NoControlCharacters = (options?: ValidationOptions) =>
  textRule('noControlCharacters', FORBIDDEN_STRICT, 'control characters or bidirectional overrides', options);

/** Like NoControlCharacters but allows tab, line feed and carriage return (multi-line text, CRLF included). */
export const NoControlCharactersExceptWhitespace = (options?: ValidationOptions) =>
  textRule(
    'noControlCharactersExceptWhitespace',
    FORBIDDEN_MULTILINE,
    'control characters other than tab and line breaks, or bidirectional overrides',
    options,
  );

/** Bounds a string by its UTF-8 size, which is what hashing and storage actually pay for. */
export function MaxBytes(max: number, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'maxBytes',
      target: object.constructor,
      propertyName,
      constraints: [max],
      options,
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || Buffer.byteLength(value, 'utf8') <= max,
        defaultMessage: (args: ValidationArguments) => `${args.property} must be at most ${max} bytes long`,
      },
    });
}

/**
 * The one length rule for text fields: min..max Unicode code points, the unit MySQL's
 * VARCHAR(n) counts in utf8mb4 and JSON Schema's minLength/maxLength mean. (class-validator's
 * Length/MaxLength count a character followed by U+FE0E/U+FE0F as one, which let 510 code points
 * through a 255 rule.) Use it for every bounded string; `each` applies it to array entries.
 */
export function TextLength(min: number, max: number, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'textLength',
      target: object.constructor,
      propertyName,
      constraints: [min, max],
      options,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return true; // type rules report this
          const length = codePointLength(value);
          return length >= min && length <= max;
        },
        defaultMessage: (args: ValidationArguments) => {
          const tooShort = typeof args.value === 'string' && codePointLength(args.value) < min;
          return (
            `${args.property}${options?.each ? ' entries' : ''} must be ` +
            (tooShort ? `longer than or equal to ${min}` : `shorter than or equal to ${max}`) +
            ' characters (Unicode code points)'
          );
        },
      },
    });
}
