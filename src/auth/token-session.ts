/**
 * What a verified token says on a `@SessionCheckedByQuery()` route: whose it is and the token
 * version it was issued with. The route's own statement checks both against the user row.
 */
export interface TokenSession {
  userId: string;
  tokenVersion: number;
}
