import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { buildConfiguration } from '../config/configuration.js';
import { ARGON2_OPTIONS, PasswordHasher } from './password-hasher.service.js';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(buildConfiguration({ PASSWORD_HASH_CONCURRENCY: '1' }).passwordHash);

  it('hashes with argon2id at the configured cost', async () => {
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(hasher.verify(stored, 'correct horse')).resolves.toBe(true);
    await expect(hasher.verify(stored, 'wrong')).resolves.toBe(false);
  });

  it('says no for an unknown user even if the password matches the dummy', async () => {
    await expect(hasher.verify(undefined, 'dummy-password-for-timing-equalisation')).resolves.toBe(false);
  });

  it('treats a corrupt stored hash as a mismatch, not an error', async () => {
    await expect(hasher.verify('not-a-hash', 'x')).resolves.toBe(false);
  });

  it('bounds concurrent hashing', async () => {
    const stored = await hash('p', ARGON2_OPTIONS);
    const results = await Promise.all(Array.from({ length: 4 }, () => hasher.verify(stored, 'p')));
    expect(results).toEqual([true, true, true, true]);
  });
});
