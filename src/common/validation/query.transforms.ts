import type { TransformFnParams } from 'class-transformer';

/** "12" -> 12; anything else (arrays from repeated parameters, "1.5", "abc", "") is left for the validators to reject. */
export const toInteger = ({ value }: TransformFnParams): unknown =>
  typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;

/** Only the exact strings "true" and "false" become booleans. */
export const toBoolean = ({ value }: TransformFnParams): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;
