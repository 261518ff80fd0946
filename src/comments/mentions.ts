/** `@name` preceded by the start or a space, up to the next space; trailing punctuation is not part of it. */
const MENTION = /(?<=^|\s)@([^\s@]+)/gu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/u;
export const MAX_MENTIONS = 50;

/** The distinct usernames a comment mentions, at most MAX_MENTIONS (usernames with spaces cannot be mentioned). */
export function mentionedUsernames(body: string): string[] {
  const names = new Set<string>();
  for (const match of body.matchAll(MENTION)) {
    const name = match[1].replace(TRAILING_PUNCTUATION, '');
    if (name) names.add(name);
    if (names.size === MAX_MENTIONS) break;
  }
  return [...names];
}
