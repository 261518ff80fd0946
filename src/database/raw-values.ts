/** A raw datetime value: a Date on MySQL, text ("YYYY-MM-DD HH:MM:SS.mmm", UTC) on SQLite. */
export function rawDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(`${value.replace(' ', 'T')}Z`);
}

/** A raw nullable datetime value (see rawDate). */
export function rawNullableDate(value: Date | string | null): Date | null {
  return value === null ? null : rawDate(value);
}
