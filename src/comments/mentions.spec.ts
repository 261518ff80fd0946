import { describe, expect, it } from 'vitest';
import { MAX_MENTIONS, mentionedUsernames } from './mentions.js';

describe('mentionedUsernames', () => {
  it('finds @names at the start and after spaces, without trailing punctuation', () => {
    expect(mentionedUsernames('@alice see this, @bob. Also (@carl) and mail@example.com')).toEqual(['alice', 'bob']);
  });

  it('keeps each name once and accepts non-ASCII names', () => {
    expect(mentionedUsernames('@zoë @zoë\n@o.brien!')).toEqual(['zoë', 'o.brien']);
  });

  it('stops at the bound', () => {
    const body = Array.from({ length: MAX_MENTIONS + 5 }, (_, i) => `@u${i}`).join(' ');
    expect(mentionedUsernames(body)).toHaveLength(MAX_MENTIONS);
  });
});
