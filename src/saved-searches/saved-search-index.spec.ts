import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from './entities/saved-search.entity.js';
import { buildIndex } from './saved-search-matcher.js';
import type { DocumentFacts } from './saved-search-index.js';

const PROJECT = randomUUID();
const TYPE = randomUUID();
const UPLOADER = randomUUID();

function search(fields: Partial<SavedSearch>): SavedSearch {
  const at = new Date();
  return {
    id: randomUUID(),
    ownerId: randomUUID(),
    name: 's',
    q: null,
    filters: {},
    alert: true,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

function documentFacts(fields: Partial<DocumentFacts> = {}): DocumentFacts {
  return {
    id: randomUUID(),
    projectId: PROJECT,
    documentTypeId: TYPE,
    status: 'draft',
    uploadedBy: UPLOADER,
    tags: ['legal', 'q3'],
    title: 'Supplier contract Ümlaut',
    description: 'Signed copy',
    fileName: 'contract.pdf',
    deletedAt: null,
    rowVersion: 1,
    ...fields,
  };
}

describe('SavedSearchIndex', () => {
  it('finds the searches whose filters the document meets, and no other', () => {
    const hits = [
      search({ filters: { projectId: PROJECT } }),
      search({ filters: { projectId: PROJECT, status: 'draft', tags: 'legal' } }),
      search({ filters: { documentTypeId: TYPE } }),
      search({ filters: { uploadedBy: UPLOADER } }),
      search({ filters: { status: 'draft' } }),
      search({ q: 'supplier contr' }),
      search({ q: 'ümlaut' }),
      // Both full-text indexes ignore diacritics.
      search({ q: 'umlaut' }),
      search({ q: 'sïgned' }),
      search({ q: 'co' }),
      search({}),
    ];
    const misses = [
      search({ filters: { projectId: randomUUID() } }),
      search({ filters: { projectId: PROJECT, status: 'published' } }),
      search({ filters: { projectId: PROJECT, tags: 'legal,finance' } }),
      search({ filters: { documentTypeId: randomUUID() } }),
      search({ q: 'supplier invoice' }),
      search({ q: 'invoice' }),
    ];
    const index = buildIndex([...hits, ...misses]);
    expect(new Set(index.candidates(documentFacts()).map((s) => s.id))).toEqual(new Set(hits.map((s) => s.id)));
    expect(index.candidates(documentFacts({ deletedAt: new Date() }))).toEqual([]);
  });

  it('looks at a few buckets, not at every search: 10,000 searches, cost per document event', () => {
    const projects = Array.from({ length: 200 }, () => randomUUID());
    const words = Array.from({ length: 500 }, (_, i) => `word${i}x`);
    const searches = Array.from({ length: 10_000 }, (_, i) =>
      search(
        i % 3 === 0
          ? { filters: { projectId: projects[i % projects.length], status: 'in_review' } }
          : i % 3 === 1
            ? { q: `${words[i % words.length]} ${words[(i * 7) % words.length]}` }
            : { filters: { documentTypeId: randomUUID() } },
      ),
    );
    const index = buildIndex(searches);
    const document = documentFacts({
      projectId: projects[3],
      title: `${words[10]} ${words[70]} report`,
      status: 'in_review',
    });
    for (let i = 0; i < 200; i++) index.candidates(document);
    const samples: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const started = performance.now();
      index.candidates(document);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const p50 = samples[samples.length >> 1];
    const p99 = samples[Math.floor(samples.length * 0.99)];
    console.log(
      `saved-search candidates, 10,000 searches: p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs`,
    );
    expect(index.candidates(document).length).toBeGreaterThan(0);
    expect(index.candidates(document).length).toBeLessThan(200);
  });
});
