import { describe, expect, it } from 'vitest';
import { codePointLength, hasLoneSurrogate } from './unicode.js';

describe('codePointLength', () => {
  it('counts code points, not UTF-16 units and not what a validator thinks a character is', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('💥')).toBe(1);
    expect(codePointLength('❤️')).toBe(2); // U+2764 U+FE0F: validator.js counts this as 1
    expect(codePointLength('a\uFE0F'.repeat(255))).toBe(510);
    expect(codePointLength('e\u0301')).toBe(2);
    expect(codePointLength('x\ud800y')).toBe(3);
    expect(codePointLength('\udc00\ud800')).toBe(2); // reversed halves are not a pair
    expect(codePointLength('💥'.repeat(300))).toBe(300);
  });
});

describe('hasLoneSurrogate', () => {
  it('finds a surrogate without its partner, anywhere', () => {
    expect(hasLoneSurrogate('lone \ud800 x')).toBe(true);
    expect(hasLoneSurrogate('\udfff')).toBe(true);
    expect(hasLoneSurrogate('end\ud83d')).toBe(true);
    expect(hasLoneSurrogate('\ude00start')).toBe(true);
    expect(hasLoneSurrogate('💥 fine ❤️ é')).toBe(false);
    expect(hasLoneSurrogate('')).toBe(false);
  });
});
