// A surrogate code unit that is not half of a pair (the u flag makes the regex see pairs as one).
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when the string is not well-formed UTF-16: it has a surrogate without its partner. Such a
 * string has no UTF-8 form, so each database would store something else (MariaDB U+FFFD, SQLite
 * bytes that read back as three U+FFFD) and the answer would not be what was stored.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * Length in Unicode code points: what MySQL's VARCHAR(n) and CHAR_LENGTH count in utf8mb4, and
 * what JSON Schema's maxLength means. An emoji is 1 (2 UTF-16 units), "❤️" is 2 (the heart and
 * U+FE0F), "é" written as e + U+0301 is 2.
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
