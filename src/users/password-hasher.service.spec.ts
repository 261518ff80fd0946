import * as argon2 from '@node-rs/argon2';
import { describe, expect, it, vi } from 'vitest';
import { buildConfiguration } from '../config/configuration.js';
import { ARGON2_OPTIONS, PasswordHasher } from './password-hasher.service.js';

/** The real argon2, counting its calls: started, still running, and the most running at once. */
const inFlight = vi.hoisted(() => ({ started: 0, now: 0, max: 0 }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  const counted =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      inFlight.started++;
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      try {
        return await work(...args);
      } finally {
        inFlight.now--;
      }
    };
  return { ...real, hash: counted(real.hash), verify: counted(real.verify) };
});

const hasherWithConcurrency = (n: number) =>
  new PasswordHasher(buildConfiguration({ PASSWORD_HASH_CONCURRENCY: String(n) }).passwordHash);

describe('PasswordHasher', () => {
  const hasher = hasherWithConcurrency(1);

  it('hashes with argon2id at the configured cost', async () => {
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(hasher.verify(stored, 'correct horse')).resolves.toBe(true);
    await expect(hasher.verify(stored, 'wrong')).resolves.toBe(false);
  });

  it('says no for an unknown user even if the password matches the dummy', async () => {
    await expect(hasher.verify(undefined, 'dummy-password-for-timing-equalisation')).resolves.toBe(false);
  });

  it('verifies against the dummy hash for an unknown user, so that path costs one verification too', async () => {
    await hasher.verify(undefined, 'warm-up'); // the dummy hash itself is computed once, at construction
    const before = inFlight.started;
    await hasher.verify(undefined, 'anything');
    expect(inFlight.started).toBe(before + 1);
  });

  it('treats a corrupt stored hash as a mismatch, not an error', async () => {
    await expect(hasher.verify('not-a-hash', 'x')).resolves.toBe(false);
  });

  it.each([1, 2])('runs at most %i hash or verification at once (PASSWORD_HASH_CONCURRENCY)', async (limit) => {
    const limited = hasherWithConcurrency(limit);
    const stored = await argon2.hash('p', ARGON2_OPTIONS);
    await limited.verify(undefined, 'p'); // settles the dummy hash, which the limiter does not cover
    inFlight.max = 0;
    const results = await Promise.all([
      ...Array.from({ length: 3 }, () => limited.verify(stored, 'p')),
      ...Array.from({ length: 2 }, () => limited.verify(undefined, 'p')),
      ...Array.from({ length: 2 }, () => limited.hash('p').then(Boolean)),
    ]);
    expect(results).toEqual([true, true, true, false, false, true, true]);
    expect(inFlight.now).toBe(0);
    // Seven calls were queued at once: exactly `limit` ran together, never more.
    expect(inFlight.max).toBe(limit);
  });
});
