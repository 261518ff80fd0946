import { describe, expect, it } from 'vitest';
import { identityKey } from './identity-key.js';

describe('identityKey', () => {
  it('folds case beyond ASCII', () => {
    expect(identityKey('Émile')).toBe(identityKey('émile'));
    expect(identityKey('STRASSE')).toBe(identityKey('straße'));
    expect(identityKey('ALICE@Example.COM')).toBe('alice@example.com');
  });

  it('folds compatibility forms and composed/decomposed accents alike', () => {
    expect(identityKey('e\u0301mile')).toBe(identityKey('\u00e9mile'));
    expect(identityKey('ｅｍｉｌｅ')).toBe('emile');
  });

  it('keeps identifiers that differ by more than case apart', () => {
    expect(identityKey('emile')).not.toBe(identityKey('émile'));
    expect(identityKey('alice')).not.toBe(identityKey('alice '));
  });
});
