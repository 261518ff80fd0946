// The extracted text of the content bench's documents: about CONTENT_TEXT_BYTES of words per
// document, drawn from a fixed vocabulary with a Zipf-like frequency (a few words in every document,
// most in a few), and the search word in CONTENT_RARE_PER_MILLE of them. Deterministic.
import { sqlDate, type Row } from '../datagen.js';
import { rng } from '../util.js';
import { docDocumentId, type DocPlan } from '../documents/doc-datagen.js';

/** The word a content search looks for: only in the text of the rare documents, and no vocabulary word starts with it. */
export const CONTENT_WORD = 'zephyrine';
/** A two-word phrase of the rare documents' text (the phrase search). */
export const CONTENT_PHRASE = 'zephyrine clause';

const COMMON = [
  'the',
  'and',
  'for',
  'with',
  'this',
  'that',
  'shall',
  'will',
  'from',
  'are',
  'agreement',
  'party',
  'parties',
  'contract',
  'supplier',
  'customer',
  'service',
  'services',
  'date',
  'payment',
  'invoice',
  'delivery',
  'terms',
  'section',
  'period',
  'notice',
  'written',
  'according',
  'maintenance',
  'report',
  'quarter',
  'budget',
  'project',
];
const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'br', 'st', 'tr', 'pl'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const CODAS = ['', 'n', 'r', 's', 't', 'l', 'nd', 'rt'];

/** 4,000 made-up words of 2-3 syllables (none starts with z), after the common ones. */
const VOCABULARY: string[] = (() => {
  const random = rng(20261127);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const words = new Set<string>(COMMON);
  while (words.size < COMMON.length + 4000) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(VOWELS) + (s === syllables - 1 ? pick(CODAS) : '');
    words.add(word);
  }
  return [...words];
})();
const LOG_SIZE = Math.log(VOCABULARY.length);

/** About `chars` characters of sentences from the vocabulary, seeded. */
export function contentText(seed: number, chars: number, rare = false): string {
  const random = rng(seed);
  const parts: string[] = [];
  let length = 0;
  let sentence = 0;
  // The rare documents carry the word (in the phrase) once, somewhere in the middle.
  let placed = !rare;
  const rareAt = rare ? Math.floor(chars * (0.2 + random() * 0.6)) : Infinity;
  while (length < chars) {
    // Log-uniform rank: frequency about 1/rank (Zipf).
    let word = VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(random() * LOG_SIZE)) - 1)];
    if (sentence === 0) word = word[0].toUpperCase() + word.slice(1);
    if (!placed && length >= rareAt) {
      word = `${word} ${CONTENT_PHRASE}`;
      placed = true;
    }
    sentence++;
    const end = sentence > 8 && random() < 0.12;
    if (end) sentence = 0;
    const piece = end ? `${word}.${random() < 0.2 ? '\n' : ' '}` : `${word} `;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('').trimEnd();
}

/** Whether document j's text holds CONTENT_WORD (a multiplicative hash, other than the titles' one). */
export function isContentRare(j: number, perMille: number): boolean {
  return Math.imul(j + 7, 2246822519) >>> 0 < (0x100000000 / 1000) * perMille;
}

/** How many of `rows` documents hold CONTENT_WORD. */
export function rareCount(rows: number, perMille: number): number {
  let count = 0;
  for (let j = 0; j < rows; j++) if (isContentRare(j, perMille)) count++;
  return count;
}

export const CONTENT_COLUMNS = [
  'documentId',
  'version',
  'status',
  'pages',
  'characters',
  'extractedAt',
  'error',
  'text',
];

/** document_contents rows of every document (version 1, indexed), the text as the service stores it (JSON). */
export function* contentRows(plan: DocPlan, textBytes: number, perMille: number): Generator<Row> {
  const extractedAt = sqlDate(plan.now - 3_600_000);
  for (let j = 0; j < plan.doc.rows; j++) {
    const text = contentText(j + 1, textBytes, isContentRare(j, perMille));
    yield [
      docDocumentId(j),
      1,
      'indexed',
      Math.max(1, Math.round(text.length / 3000)),
      text.length,
      extractedAt,
      null,
      JSON.stringify(text),
    ];
  }
}
