/** Whether `name` is an IANA time zone this runtime knows (e.g. Europe/Berlin, UTC). */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || name.length === 0) return false;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone.length > 0;
  } catch {
    return false;
  }
}
