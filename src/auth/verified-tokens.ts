import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { TokenSession, VerifiedToken } from './token-session.js';

/** Tokens kept: one per recently active session (~0.5 KB each, ~5 MB at most). */
export const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Tokens whose signature and claims passport-jwt has verified, kept until their `exp`. A client
 * sends the same token with every request for its whole lifetime, and verifying it through passport
 * and jsonwebtoken each time cost ~35 µs of CPU of the ~350 µs a notification list takes on SQLite.
 *
 * Safe because the key is the whole token: a hit is the exact bytes that were verified before
 * (a changed signature, header or claim is another key and is verified), and only tokens that passed
 * are kept, so a flood of forged ones cannot fill it. Time is the one thing that changes a verified
 * token's verdict, so `exp` is checked again on every hit, exactly as jsonwebtoken checks it. The
 * session (user exists, is active, token version current) is not decided here: the guard or the
 * route's statement checks it on every request, so logout and deactivation still apply at once.
 * Envoy's JWT filter keeps verified tokens the same way (`jwt_cache_config`).
 */
@Injectable()
export class VerifiedTokens {
  private readonly tokens = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS_KEPT });

  /** The session of a token verified before, unless it has expired since. */
  sessionOf(token: string): TokenSession | undefined {
    const verified = this.tokens.get(token);
    if (verified === undefined) return undefined;
    // jsonwebtoken's rule: expired from the second `exp` names (no clock tolerance is configured).
    if (Math.floor(Date.now() / 1000) >= verified.expiresAt) {
      this.tokens.delete(token);
      return undefined;
    }
    return verified.session;
  }

  remember(token: string, verified: VerifiedToken): void {
    this.tokens.set(token, verified);
  }
}
