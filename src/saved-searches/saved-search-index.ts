import type { SavedSearchFilters } from './entities/saved-search.entity.js';

/** A saved search as the matcher holds it in memory. */
export interface IndexedSearch {
  id: string;
  ownerId: string;
  name: string;
  q: string | null;
  filters: SavedSearchFilters;
  /** searchWords(q), lower-cased: all must match, the last as a prefix. */
  words: string[];
  tags: string[];
}

/** What matching reads of a document (its current row). */
export interface DocumentFacts {
  id: string;
  projectId: string;
  documentTypeId: string;
  status: string;
  uploadedBy: string;
  tags: string[];
  title: string;
  description: string;
  fileName: string;
  deletedAt: Date | null;
  /** Moves with every change (the matcher records nothing from a document changed meanwhile). */
  rowVersion: number;
}

/**
 * Lower-cased words of a text, as the list's search splits q (runs of letters, digits and marks),
 * without diacritics: both full-text indexes match "cafe" to "Café".
 */
export function textWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}]+/gu) ?? []
  )
    .map((word) => word.normalize('NFD').replace(/\p{M}/gu, ''))
    .filter((word) => word.length > 0);
}

const prefix = (word: string, length: number) => Array.from(word).slice(0, length).join('');
const PREFIX_KEY_LENGTH = 3;

/** The one bucket a search is filed under: its most selective filter. */
function keyOf(search: IndexedSearch): string {
  const { filters, words } = search;
  if (filters.projectId) return `p:${filters.projectId}`;
  if (filters.documentTypeId) return `t:${filters.documentTypeId}`;
  if (filters.uploadedBy) return `u:${filters.uploadedBy}`;
  if (words.length) {
    const whole = words.slice(0, -1).toSorted((a, b) => b.length - a.length)[0];
    return whole
      ? `w:${whole}`
      : `w${Math.min(PREFIX_KEY_LENGTH, Array.from(words.at(-1)!).length)}:${prefix(words.at(-1)!, PREFIX_KEY_LENGTH)}`;
  }
  if (filters.status) return `s:${filters.status}`;
  return '*';
}

/** Every bucket key a document can be a candidate of. */
function keysOf(document: DocumentFacts, tokens: Set<string>): string[] {
  const keys = [
    `p:${document.projectId}`,
    `t:${document.documentTypeId}`,
    `u:${document.uploadedBy}`,
    `s:${document.status}`,
    '*',
  ];
  for (const token of tokens) {
    keys.push(`w:${token}`);
    for (let length = 1; length <= PREFIX_KEY_LENGTH; length++) keys.push(`w${length}:${prefix(token, length)}`);
  }
  return keys;
}

export function documentTokens(document: DocumentFacts): Set<string> {
  return new Set(textWords([document.title, document.description, document.fileName, ...document.tags].join(' ')));
}

/** The list's filters, as the list applies them (AND; every tag must be among the document's). */
export function matchesFilters(search: IndexedSearch, document: DocumentFacts): boolean {
  const { filters } = search;
  if (document.deletedAt !== null) return false;
  if (filters.projectId && filters.projectId !== document.projectId) return false;
  if (filters.documentTypeId && filters.documentTypeId !== document.documentTypeId) return false;
  if (filters.status && filters.status !== document.status) return false;
  if (filters.uploadedBy && filters.uploadedBy !== document.uploadedBy) return false;
  return search.tags.every((tag) => document.tags.includes(tag));
}

/** A cheap necessary condition for q (the database search decides): every word present, the last as a prefix. */
export function mayMatchWords(search: IndexedSearch, tokens: Set<string>): boolean {
  if (search.words.length === 0) return true;
  const last = search.words.at(-1)!;
  const whole = search.words.slice(0, -1);
  if (!whole.every((word) => tokens.has(word))) return false;
  for (const token of tokens) if (token.startsWith(last)) return true;
  return false;
}

/**
 * Alerting saved searches filed by their most selective filter (project, type, uploader, a word of
 * q, status; else one shared bucket), so a document event looks only at the buckets its own values
 * name instead of at every search: the candidates are then checked in memory.
 */
export class SavedSearchIndex {
  private readonly buckets = new Map<string, IndexedSearch[]>();

  constructor(searches: Iterable<IndexedSearch>) {
    for (const search of searches) {
      const key = keyOf(search);
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(search);
      else this.buckets.set(key, [search]);
    }
  }

  /** The searches whose filters the document meets and whose words it may contain. */
  candidates(document: DocumentFacts): IndexedSearch[] {
    const tokens = documentTokens(document);
    const found: IndexedSearch[] = [];
    for (const key of new Set(keysOf(document, tokens))) {
      for (const search of this.buckets.get(key) ?? []) {
        if (matchesFilters(search, document) && mayMatchWords(search, tokens)) found.push(search);
      }
    }
    return found;
  }
}
