import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';

/**
 * jsonwebtoken's HS256 verify, keeping the tokens that passed until their exp, as the service's
 * VerifiedTokens does: every baseline verifies a token the way the service does (once per process),
 * so the ratios compare the rest of the request. Throws what jwt.verify throws.
 */
export function tokenVerifier(secret: KeyObject, issuer: string, audience: string): (token: string) => jwt.JwtPayload {
  const verified = new LRUCache<string, jwt.JwtPayload>({ max: 10_000 });
  return (token) => {
    const known = verified.get(token);
    if (known && Math.floor(Date.now() / 1000) < (known.exp as number)) return known;
    const claims = jwt.verify(token, secret, { algorithms: ['HS256'], issuer, audience }) as jwt.JwtPayload;
    if (typeof claims.exp === 'number') verified.set(token, claims);
    return claims;
  };
}
