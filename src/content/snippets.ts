/** Longest snippet, in characters of text (the <mark> tags and HTML escapes not counted). */
export const SNIPPET_MAX_CHARS = 200;

const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}]';

const NOT_ASCII = /\P{ASCII}/u;

/**
 * `text` folded for matching (lower case, accents dropped), with each folded unit's index in
 * `text` (null: the same index, as for ASCII text, which needs no per-character normalization).
 */
function fold(text: string): { folded: string; origin: Int32Array | null } {
  if (!NOT_ASCII.test(text)) return { folded: text.toLowerCase(), origin: null };
  const parts: string[] = [];
  let origin = new Int32Array(text.length + 1);
  let units = 0;
  const at = (index: number) => {
    if (units === origin.length) {
      const grown = new Int32Array(origin.length * 2);
      grown.set(origin);
      origin = grown;
    }
    origin[units++] = index;
  };
  let done = 0;
  // ASCII runs are lowered at once; only the other characters are normalized one by one.
  const asciiRun = (end: number) => {
    parts.push(text.slice(done, end).toLowerCase());
    for (let index = done; index < end; index++) at(index);
  };
  for (const run of text.matchAll(/\P{ASCII}+/gu)) {
    asciiRun(run.index);
    let index = run.index;
    for (const character of run[0]) {
      const simple = character.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
      parts.push(simple);
      for (let unit = 0; unit < simple.length; unit++) at(index);
      index += character.length;
    }
    done = index;
  }
  asciiRun(text.length);
  at(text.length);
  return { folded: parts.join(''), origin };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The hits of a search's words in `text` as [start, end) ranges of `text`: whole words, the
 * last one also as a prefix (as the search matches it); a word with spaces is a phrase. Case and
 * accents do not matter, as in both databases' indexes.
 */
export function findHits(text: string, words: readonly string[]): [number, number][] {
  if (words.length === 0 || text.length === 0) return [];
  const { folded, origin } = fold(text);
  const patterns = words.map((word, index) => {
    const parts = fold(word.normalize('NFKC')).folded.split(/\s+/).filter(Boolean).map(escapeRegExp);
    // A prefix is marked up to the end of the word it begins.
    const tail = index === words.length - 1 && parts.length === 1 ? `${WORD_CHAR}*` : `(?!${WORD_CHAR})`;
    return `(?<!${WORD_CHAR})${parts.join(`[^\\p{L}\\p{N}]+`)}${tail}`;
  });
  const hits: [number, number][] = [];
  for (const match of folded.matchAll(new RegExp(patterns.join('|'), 'gu'))) {
    if (match[0].length === 0) continue;
    const end = match.index + match[0].length;
    hits.push(origin ? [origin[match.index], origin[end]] : [match.index, end]);
  }
  return hits;
}

/**
 * About SNIPPET_MAX_CHARS characters of `text` around its first hit, HTML-escaped, every hit in it
 * wrapped in <mark>…</mark>, "…" where it was cut; null when no word is in `text`.
 */
export function snippet(text: string, words: readonly string[]): string | null {
  const hits = findHits(text, words);
  if (hits.length === 0) return null;
  const [firstStart, firstEnd] = hits[0];
  const room = Math.max(0, SNIPPET_MAX_CHARS - (firstEnd - firstStart));
  let start = Math.max(0, firstStart - Math.floor(room / 3));
  let end = Math.min(text.length, start + SNIPPET_MAX_CHARS);
  start = Math.max(0, Math.min(start, end - SNIPPET_MAX_CHARS));
  // Cut at spaces when one is near, so no word is split.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < firstStart && space - start < 20) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > firstEnd && end - space < 20) end = space;
  }
  let out = start > 0 ? '…' : '';
  let position = start;
  for (const [hitStart, hitEnd] of hits) {
    if (hitStart < position || hitEnd > end) continue;
    out += `${escapeHtml(text.slice(position, hitStart))}<mark>${escapeHtml(text.slice(hitStart, hitEnd))}</mark>`;
    position = hitEnd;
  }
  out += escapeHtml(text.slice(position, end)) + (end < text.length ? '…' : '');
  return out.replace(/\s+/g, ' ');
}
