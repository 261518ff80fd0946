/**
 * The key two account identifiers (usernames, e-mail addresses) are compared by for uniqueness:
 * NFKC-normalised and case-folded in the application, so "Émile" and "émile" (or "ß" and "SS")
 * collide on SQLite exactly as on MySQL, whose LOWER()/collations SQLite does not have. Stored in
 * its own uniquely indexed column beside the identifier as typed (see the users migration).
 * Upper-casing first folds characters whose lower case is not their fold ("ß" -> "SS" -> "ss").
 */
export function identityKey(value: string): string {
  return value.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
