import { describe, expect, it } from 'vitest';
import { decodeDocumentCursor, encodeDocumentCursor } from './document-cursor.js';
import { searchWords } from './documents.service.js';
import {
  COUNT_CAP,
  fullTextQuery,
  plansFieldFilters,
  textMatchStatement,
  walksDocuments,
} from './document-search.repository.js';

const ID = '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f';

describe('searchWords', () => {
  it('keeps runs of letters and digits, drops short words but the last', () => {
    expect(searchWords('  a supplier-contract, of 2026 x')).toEqual(['supplier', 'contract', '2026', 'x']);
    expect(searchWords('Ｆｕｌｌ width')).toEqual(['Full', 'width']);
    expect(searchWords('!!')).toEqual([]);
    expect(searchWords('"supplier contract" of "q3" "open')).toEqual(['supplier contract', 'open']);
  });
});

describe('fullTextQuery', () => {
  it('writes every word as required and the last as a prefix', () => {
    expect(fullTextQuery('mysql', ['supplier', 'contr'])).toBe('+supplier +contr*');
    expect(fullTextQuery('sqlite', ['supplier', 'contr'])).toBe('"supplier" "contr"*');
    expect(fullTextQuery('mysql', ['deliver', 'supplier contract'])).toBe('+deliver +"supplier contract"');
    expect(fullTextQuery('sqlite', ['supplier contract'])).toBe('"supplier contract"');
  });
});

describe('textMatchStatement', () => {
  it("checks each query against the one document's full-text row, answering its position", () => {
    const [sqlite, parameters] = textMatchStatement('sqlite', ID, ['"supplier"*', '"a b"']);
    expect(sqlite).toBe(
      'SELECT 0 AS i FROM documents d CROSS JOIN documents_fts f ON f.rowid = d.rowid WHERE d.id = ? AND documents_fts MATCH ? ' +
        'UNION ALL SELECT 1 AS i FROM documents d CROSS JOIN documents_fts f ON f.rowid = d.rowid WHERE d.id = ? AND documents_fts MATCH ?',
    );
    expect(parameters).toEqual([ID, '"supplier"*', ID, '"a b"']);
    const [mysql] = textMatchStatement('mysql', ID, ['+supplier*']);
    expect(mysql).toMatch(
      /^SELECT 0 AS i FROM document_search s WHERE s\.documentId = \? AND MATCH \(.*\) AGAINST \(\? IN BOOLEAN MODE\)$/,
    );
  });
});

describe('document cursor', () => {
  it('round-trips for its sort and is refused for another', () => {
    const cursor = encodeDocumentCursor({ sort: 'title', value: 'alpha', id: ID });
    expect(decodeDocumentCursor(cursor, 'title')).toEqual({ sort: 'title', value: 'alpha', id: ID });
    expect(() => decodeDocumentCursor(cursor, '-title')).toThrow(/cursor/);
  });

  it('refuses a date cursor whose value is not epoch milliseconds, and garbage', () => {
    const bad = Buffer.from(JSON.stringify({ s: '-updatedAt', v: 'x', i: ID })).toString('base64url');
    expect(() => decodeDocumentCursor(bad, '-updatedAt')).toThrow(/cursor/);
    expect(() => decodeDocumentCursor('not a cursor', '-updatedAt')).toThrow(/cursor/);
    expect(() => decodeDocumentCursor(Buffer.from('[1]').toString('base64url'), '-updatedAt')).toThrow(/cursor/);
  });
});

describe('the plan of a page filtered by custom fields', () => {
  const region = { fieldId: ID, column: 'textValue' as const, op: '=' as const, value: 'north' };

  it('walks the documents when the matches are a good share of the type, reads the values when they are few', () => {
    // 1M bench: a quarter of 125,000 (counted up to the cap), a member's 316 of 1,250; 298 of 125,000 stays value-first.
    expect(walksDocuments(COUNT_CAP + 1, 125_000, 21)).toBe(true);
    expect(walksDocuments(316, 1_250, 21)).toBe(true);
    expect(walksDocuments(298, 125_000, 21)).toBe(false);
    expect(walksDocuments(5, 1_250, 21)).toBe(false);
    // Deeper pages walk further: the same share stops paying.
    expect(walksDocuments(316, 1_250, 401)).toBe(false);
  });

  it('plans field filters in updatedAt order only, without a field sort or a search', () => {
    const fields = { filters: [region] };
    expect(plansFieldFilters({ fields }, '-updatedAt')).toBe(true);
    expect(plansFieldFilters({ fields }, 'updatedAt')).toBe(true);
    expect(plansFieldFilters({ fields }, 'title')).toBe(false);
    expect(plansFieldFilters({ fields, words: ['report'] }, '-updatedAt')).toBe(false);
    expect(
      plansFieldFilters(
        { fields: { ...fields, sort: { fieldId: ID, column: 'numberValue', descending: false } } },
        '-updatedAt',
      ),
    ).toBe(false);
    expect(plansFieldFilters({ fields: { filters: [] } }, '-updatedAt')).toBe(false);
    expect(plansFieldFilters({}, '-updatedAt')).toBe(false);
  });
});
