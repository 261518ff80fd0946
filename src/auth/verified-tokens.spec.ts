import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VERIFIED_TOKENS_KEPT, VerifiedTokens } from './verified-tokens.js';

const session = { userId: 'b0000001-0000-4000-8000-000000000001', tokenVersion: 3 };
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const inSeconds = (seconds: number) => NOW / 1000 + seconds;

describe('VerifiedTokens', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('knows nothing of a token it was not given', () => {
    expect(new VerifiedTokens().sessionOf('a.b.c')).toBeUndefined();
  });

  it("answers a remembered token's session, for that exact token only", () => {
    const tokens = new VerifiedTokens();
    tokens.remember('header.claims.signature', { session, expiresAt: inSeconds(60) });
    expect(tokens.sessionOf('header.claims.signature')).toEqual(session);
    expect(tokens.sessionOf('header.claims.signaturf')).toBeUndefined();
    expect(tokens.sessionOf('header.claims.signature ')).toBeUndefined();
  });

  it('stops answering from the second exp names, as jsonwebtoken does, and forgets the token', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('t', { session, expiresAt: inSeconds(10) });
    vi.setSystemTime(NOW + 9_999);
    expect(tokens.sessionOf('t')).toEqual(session);
    vi.setSystemTime(NOW + 10_000);
    expect(tokens.sessionOf('t')).toBeUndefined();
    // Forgotten: a clock set back does not bring it back.
    vi.setSystemTime(NOW);
    expect(tokens.sessionOf('t')).toBeUndefined();
  });

  it(`keeps at most ${VERIFIED_TOKENS_KEPT} tokens, dropping the least recently used`, () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i <= VERIFIED_TOKENS_KEPT; i++) {
      tokens.remember(`token-${i}`, { session, expiresAt: inSeconds(60) });
      if (i === 0) continue;
      // Token 0 stays in use; token 1 is the one left idle.
      expect(tokens.sessionOf('token-0')).toEqual(session);
    }
    expect(tokens.sessionOf('token-0')).toEqual(session);
    expect(tokens.sessionOf('token-1')).toBeUndefined();
    expect(tokens.sessionOf(`token-${VERIFIED_TOKENS_KEPT}`)).toEqual(session);
  });
});
