import { describe, expect, it } from 'vitest';
import { findHits, snippet, SNIPPET_MAX_CHARS } from './snippets.js';

describe('snippets', () => {
  it('marks whole words, the last one also as a prefix, ignoring case and accents', () => {
    expect(snippet('The Café serves coffee and cafeterias', ['cafe'])).toBe(
      'The <mark>Café</mark> serves coffee and <mark>cafeterias</mark>',
    );
    expect(snippet('scaffolding and cafe', ['cafe', 'and'])).toBe('scaffolding <mark>and</mark> <mark>cafe</mark>');
    expect(findHits('decafe', ['cafe'])).toEqual([]);
  });

  it('escapes HTML around the marks', () => {
    expect(snippet('<b>fish</b> & "chips"', ['chips'])).toBe(
      '&#60;b&#62;fish&#60;/b&#62; &#38; &#34;<mark>chips</mark>&#34;',
    );
  });

  it('keeps about SNIPPET_MAX_CHARS characters around the first hit', () => {
    const text = `${'lorem ipsum '.repeat(100)}needle ${'dolor sit '.repeat(100)}`;
    const result = snippet(text, ['needle'])!;
    expect(result).toContain('<mark>needle</mark>');
    expect(result.startsWith('…') && result.endsWith('…')).toBe(true);
    expect(result.replace(/<\/?mark>/g, '').length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS + 2);
  });

  it('matches a phrase as its words in order', () => {
    expect(snippet('a signed supplier contract, a contract signed', ['supplier contract'])).toBe(
      'a signed <mark>supplier contract</mark>, a contract signed',
    );
  });

  it('finds the same hits in ASCII text (folded at once) as in text with accents (folded per character)', () => {
    expect(findHits('A CAFE, a cafe', ['cafe'])).toEqual([
      [2, 6],
      [10, 14],
    ]);
    expect(findHits('A CAFÉ, a café', ['cafe'])).toEqual([
      [2, 6],
      [10, 14],
    ]);
    expect(findHits('İ CAFE', ['cafe'])).toEqual([[2, 6]]);
  });

  it('answers null without a hit', () => {
    expect(snippet('nothing here', ['absent'])).toBeNull();
  });
});
