import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { hydrateRow } from '../database/raw-rows.js';
import type { Tx } from '../database/transactions.js';
import type { FieldListTerms } from './document-fields.js';
import type { ListedContentState } from './dto/document-content.dto.js';
import { Document } from './entities/document.entity.js';

// ---------------------------------------------------------------------------------------------
// The document list, the search and the trash.

export type SqlDialect = 'mysql' | 'sqlite';

/** What a page statement reads of each document: its id and what the sorts order by (TypeORM loads the rest). */
const SORTED_COLUMNS = ['id', 'title', 'createdAt', 'updatedAt'];

/** The list orders; ties are broken by id in the same direction (relevance: id ascending). */
export const DOCUMENT_SORTS = [
  '-updatedAt',
  'updatedAt',
  '-createdAt',
  'createdAt',
  'title',
  '-title',
  'relevance',
] as const;
/** A custom field's order (src/custom-fields): only documents with a value for it, by that value. */
export type FieldSortName = `field.${string}` | `-field.${string}`;
export type DocumentSort = (typeof DOCUMENT_SORTS)[number] | FieldSortName;
export type KeysetSort = Exclude<DocumentSort, 'relevance'>;
type ColumnSort = Exclude<(typeof DOCUMENT_SORTS)[number], 'relevance'>;

export function isFieldSort(sort: string): sort is FieldSortName {
  return /^-?field\./.test(sort);
}

/** Filters (AND) with values in their stored form. */
export interface DocumentListFilters {
  projectId?: string;
  documentTypeId?: string;
  status?: string;
  uploadedBy?: string;
  /** Every one must be among the document's tags. */
  tags?: string[];
  /** Words that must all match (the last one as a prefix); see fullTextQuery(). */
  words?: string[];
  updatedFrom?: unknown;
  updatedTo?: unknown;
  /** Custom field filters and sort, resolved to field ids (DocumentFields.listTerms). */
  fields?: FieldListTerms;
}

/**
 * Whose documents: everything (documents:read), or those of the user's projects (`projectIds`, read
 * by the guard with the session) and their own live uploads in any other project.
 */
export type DocumentVisibility = ({ all: true } | { all: false; userId: string; projectIds: readonly string[] }) & {
  /** MariaDB search: find them by their scope tokens in the MATCH (see searchScopeEstimateStatement()). */
  byTokens?: boolean;
};

/**
 * Up to this many member projects, a page is a merge of one index range per project (each reads at
 * most offset + limit keys in order); beyond, one range of the everything index in order, each entry
 * kept when the caller is a member of its project (a semi-join), which reads about limit × (all
 * documents / visible ones) entries: fewer than the merge once the caller sees a good share of them.
 */
export const MAX_MERGED_PROJECTS = 50;

/** Queries per textMatchStatement(). */
const TEXT_MATCH_CHUNK = 100;

/** A total the counts cannot answer (tags, an updated range) is counted up to this many; beyond, it is a lower bound. */
export const COUNT_CAP = 1_000;

/** SQL, parameters, and whether the part reads document_counts `c` first (the caller's uploads outside their projects). */
type Predicate = [sql: string, parameters: unknown[], countsFirst?: boolean];

const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/** The member projects a projectId filter leaves, and whether the caller's own uploads outside them are visible too. */
function scopeOf(visibility: Exclude<DocumentVisibility, { all: true }>, filters: DocumentListFilters) {
  return {
    projects: visibility.projectIds.filter((id) => filters.projectId === undefined || id === filters.projectId),
    ownUploads: filters.uploadedBy === undefined || filters.uploadedBy === visibility.userId,
  };
}

/** The caller's live uploads outside their projects: document_counts names those projects (none for most callers). */
function uploadsElsewhere(visibility: Exclude<DocumentVisibility, { all: true }>): Predicate {
  const members = visibility.projectIds;
  return [
    "c.uploadedBy = ? AND c.status = '' AND c.documentTypeId = '' AND c.total > 0" +
      (members.length ? ` AND c.projectId NOT IN (${marks(members)})` : '') +
      ' AND d.projectId = c.projectId AND d.uploadedBy = c.uploadedBy',
    [visibility.userId, ...members],
    true,
  ];
}

/**
 * The visible documents as disjoint parts: with `perProject` one per member project, else one for
 * them all (a semi-join on project_members), then the caller's uploads outside their projects.
 */
function visibleParts(visibility: DocumentVisibility, filters: DocumentListFilters, perProject: boolean): Predicate[] {
  if (visibility.all) return [['1 = 1', []]];
  const { projects, ownUploads } = scopeOf(visibility, filters);
  if (filters.projectId !== undefined) {
    if (projects.length) return [['d.projectId = ?', [filters.projectId]]];
    return ownUploads ? [['d.projectId = ? AND d.uploadedBy = ?', [filters.projectId, visibility.userId]]] : [];
  }
  if (!perProject) {
    const member = 'EXISTS (SELECT 1 FROM project_members pm WHERE pm.userId = ? AND pm.projectId = d.projectId)';
    if (!ownUploads) return projects.length ? [[member, [visibility.userId]]] : [];
    // One range: the semi-join part and the own uploads are read together in order.
    if (!projects.length) return [['d.uploadedBy = ?', [visibility.userId]]];
    return [[`(${member} OR d.uploadedBy = ?)`, [visibility.userId, visibility.userId]]];
  }
  const parts: Predicate[] = projects.map((id) => ['d.projectId = ?', [id]]);
  if (ownUploads) parts.push(uploadsElsewhere(visibility));
  return parts;
}

/** One SELECT (or COUNT) over `part` with the filters: FROM, WHERE and their parameters. */
function partQuery(dialect: SqlDialect, part: Predicate, filters: DocumentListFilters, read?: DocumentsRead): Built {
  const built = build(dialect, filters, read);
  if (part[2]) built.from = `document_counts c ${dialect === 'mysql' ? 'STRAIGHT_JOIN' : 'CROSS JOIN'} ${built.from}`;
  built.where.push(part[0]);
  built.parameters.push(...part[1]);
  return built;
}

/** The (sort value, id) of the last item of a page, in stored form. */
export interface DocumentListPosition {
  value: unknown;
  id: string;
}

const SORT_COLUMN: Record<ColumnSort, { column: string; descending: boolean }> = {
  '-updatedAt': { column: 'updatedAt', descending: true },
  updatedAt: { column: 'updatedAt', descending: false },
  '-createdAt': { column: 'createdAt', descending: true },
  createdAt: { column: 'createdAt', descending: false },
  title: { column: 'title', descending: false },
  '-title': { column: 'title', descending: true },
};

export function sortColumn(sort: KeysetSort): string {
  return isFieldSort(sort) ? sort.replace(/^-/, '') : SORT_COLUMN[sort].column;
}

/** What a keyset sort orders the rows of `alias` by: a column and the id; a field sort, its value row (fs). */
function sortKey(alias: string, sort: KeysetSort, filters: DocumentListFilters) {
  const field = isFieldSort(sort) ? filters.fields?.sort : undefined;
  if (field) return { value: `fs.${field.column}`, id: 'fs.documentId', descending: field.descending };
  if (isFieldSort(sort)) throw new Error('a field sort needs its resolved term');
  const { column, descending } = SORT_COLUMN[sort];
  return { value: `${alias}.${column}`, id: `${alias}.id`, descending };
}

/** ORDER BY of a keyset sort on the rows of `alias`: the sort column, ties by id in the same direction. */
function keysetOrder(alias: string, sort: KeysetSort, filters: DocumentListFilters): string {
  const { value, id, descending } = sortKey(alias, sort, filters);
  const direction = descending ? 'DESC' : 'ASC';
  return `${value} ${direction}, ${id} ${direction}`;
}

/** The rows of `alias` that come after `after` in keysetOrder(alias, sort). */
function afterPosition(
  alias: string,
  sort: KeysetSort,
  filters: DocumentListFilters,
  after: DocumentListPosition,
): Predicate {
  const { value, id, descending } = sortKey(alias, sort, filters);
  const beyond = descending ? '<' : '>';
  return [`(${value} ${beyond} ? OR (${value} = ? AND ${id} ${beyond} ?))`, [after.value, after.value, after.id]];
}

/**
 * The MATCH operand: MariaDB BOOLEAN MODE "+w1 +w2*", FTS5 "\"w1\" \"w2\"*" (words are letters and
 * digits only); a phrase item (words joined by spaces, see searchWords) is quoted and no prefix.
 */
export function fullTextQuery(dialect: SqlDialect, words: readonly string[]): string {
  const last = words.length - 1;
  return words
    .map((word, index) => {
      const phrase = word.includes(' ');
      const prefix = index === last && !phrase ? '*' : '';
      if (dialect === 'sqlite') return `"${word.replaceAll('"', '""')}"${prefix}`;
      return phrase ? `+"${word}"` : `+${word}${prefix}`;
    })
    .join(' ');
}

interface Built {
  from: string;
  where: string[];
  parameters: unknown[];
  /** The relevance expression and its parameters (only with words). */
  score?: { sql: string; parameters: unknown[]; descending: boolean };
}

/** How a part reads documents: its index (MariaDB), and whether each one's values are probed in that order (documents-first). */
interface DocumentsRead {
  index?: string;
  walk?: boolean;
}

/** The join that keeps the order written: MariaDB's STRAIGHT_JOIN, SQLite's CROSS JOIN. */
const straightJoin = (dialect: SqlDialect) => (dialect === 'mysql' ? 'STRAIGHT_JOIN' : 'CROSS JOIN');

function build(dialect: SqlDialect, filters: DocumentListFilters, read: DocumentsRead = {}): Built {
  const where = ['d.deletedAt IS NULL'];
  const parameters: unknown[] = [];
  const documents = read.index ? `documents d FORCE INDEX (${read.index})` : 'documents d';
  // A field sort walks the field's values in order, each document by primary key (the join order forced).
  let from = filters.fields?.sort
    ? `document_field_values fs ${straightJoin(dialect)} ${documents} ON d.id = fs.documentId`
    : documents;
  let score: Built['score'];
  if (filters.words?.length) {
    // MariaDB searches are searchMatches()'s (pageCarriesTotal()).
    if (dialect === 'mysql') throw new Error('a MariaDB search is built by searchMatches()');
    from += ' JOIN documents_fts f ON f.rowid = d.rowid';
    where.push('documents_fts MATCH ?');
    parameters.push(fullTextQuery(dialect, filters.words));
    // bm25(): smaller is better.
    score = { sql: 'bm25(documents_fts)', parameters: [], descending: false };
  }
  for (const field of ['projectId', 'documentTypeId', 'status', 'uploadedBy'] as const) {
    const value = filters[field];
    if (value === undefined) continue;
    where.push(`d.${field} = ?`);
    parameters.push(value);
  }
  for (const tag of filters.tags ?? []) {
    // tags is a JSON array as text (simple-json).
    where.push(
      dialect === 'mysql'
        ? 'JSON_CONTAINS(d.tags, JSON_QUOTE(?))'
        : 'EXISTS (SELECT 1 FROM json_each(d.tags) t WHERE t.value = ?)',
    );
    parameters.push(tag);
  }
  if (filters.updatedFrom !== undefined) {
    where.push('d.updatedAt >= ?');
    parameters.push(filters.updatedFrom);
  }
  if (filters.updatedTo !== undefined) {
    where.push('d.updatedAt <= ?');
    parameters.push(filters.updatedTo);
  }
  if (filters.fields) {
    from = withFieldJoins(from, where, parameters, filters.fields, read.walk ? straightJoin(dialect) : 'JOIN');
  }
  return { from, where, parameters, score };
}

/**
 * Custom fields: one join of document_field_values per field filtered or sorted on (fs: the sort's, first),
 * its fieldId and value conditions in WHERE, so that each reads its (fieldId, value, documentId) index
 * (or, joined by `join` STRAIGHT_JOIN after the documents, its primary key for each document in turn).
 */
function withFieldJoins(
  from: string,
  where: string[],
  parameters: unknown[],
  terms: FieldListTerms,
  join: string,
): string {
  const aliases = new Map<string, string>();
  const joined = (fieldId: string, alias = `f${aliases.size}`) => {
    const known = aliases.get(fieldId);
    if (known) return known;
    aliases.set(fieldId, alias);
    // fs, the sort's, is already in FROM (build()).
    if (alias !== 'fs') from += ` ${join} document_field_values ${alias} ON ${alias}.documentId = d.id`;
    where.push(`${alias}.fieldId = ?`);
    parameters.push(fieldId);
    return alias;
  };
  if (terms.sort) joined(terms.sort.fieldId, 'fs');
  for (const { fieldId, column, op, value } of terms.filters) {
    where.push(`${joined(fieldId)}.${column} ${op} ?`);
    parameters.push(value);
  }
  return from;
}

/** Whether document_counts answers the total: every filter is one of its keys (project, uploader, status, type). */
export function totalIsCounted(filters: DocumentListFilters): boolean {
  return (
    !filters.words?.length &&
    !filters.tags?.length &&
    !filters.fields &&
    filters.updatedFrom === undefined &&
    filters.updatedTo === undefined
  );
}

/**
 * The total as one scalar expression: counted filters sum the rows of document_counts for the
 * visible projects (uploadedBy '' or the uploadedBy filter) and the caller's uploads elsewhere;
 * a search counts its matches (exact); tags and updated ranges count up to COUNT_CAP + 1 matches.
 */
export function documentTotalExpression(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): Predicate {
  if (!totalIsCounted(filters)) {
    const [part] = visibleParts(visibility, filters, false);
    if (!part) return ['0', []];
    const { from, where, parameters } = partQuery(dialect, part, filters);
    const matches = `SELECT 1 FROM ${from} WHERE ${where.join(' AND ')}`;
    if (filters.words?.length) return [`(SELECT COUNT(*) FROM (${matches}) m)`, parameters];
    return [`(SELECT COUNT(*) FROM (${matches} LIMIT ?) m)`, [...parameters, COUNT_CAP + 1]];
  }
  // Rows over any status and type have both ''; a filter on one reads the rows of each value of the other.
  const { status, documentTypeId } = filters;
  const anyOther = status === undefined && documentTypeId === undefined ? "= ''" : "<> ''";
  const keys: Predicate = [
    ` AND c.status ${status === undefined ? anyOther : '= ?'} AND c.documentTypeId ${documentTypeId === undefined ? anyOther : '= ?'}`,
    [status, documentTypeId].filter((value) => value !== undefined),
  ];
  const sum = (where: string, parameters: unknown[]): Predicate => [
    `(SELECT COALESCE(SUM(c.total), 0) FROM document_counts c WHERE ${where}${keys[0]})`,
    [...parameters, ...keys[1]],
  ];
  const sums: Predicate[] = [];
  if (visibility.all) {
    sums.push(
      filters.projectId === undefined
        ? sum('c.uploadedBy = ?', [filters.uploadedBy ?? ''])
        : sum('c.projectId = ? AND c.uploadedBy = ?', [filters.projectId, filters.uploadedBy ?? '']),
    );
  } else {
    const { projects, ownUploads } = scopeOf(visibility, filters);
    if (projects.length) {
      sums.push(
        sum(`c.projectId IN (${marks(projects)}) AND c.uploadedBy = ?`, [...projects, filters.uploadedBy ?? '']),
      );
    } else if (ownUploads && filters.projectId !== undefined) {
      sums.push(sum('c.projectId = ? AND c.uploadedBy = ?', [filters.projectId, visibility.userId]));
    }
    if (ownUploads && filters.projectId === undefined) {
      const members = visibility.projectIds;
      const outside = members.length ? ` AND c.projectId NOT IN (${marks(members)})` : '';
      sums.push(sum(`c.uploadedBy = ?${outside}`, [visibility.userId, ...members]));
    }
  }
  if (sums.length === 0) return ['0', []];
  return [sums.map(([sql]) => sql).join(' + '), sums.flatMap(([, parameters]) => parameters)];
}

/** The everything indexes, by sort column (MariaDB: named, so that a one-range page walks them in order). */
const EVERYTHING_INDEX: Record<string, string | undefined> = {
  updatedAt: 'IDX_documents_deleted_list',
  createdAt: 'IDX_documents_deleted_created',
  title: 'IDX_documents_deleted_title',
};

/** The per-project indexes, by sort column. */
const PROJECT_INDEX: Record<string, string> = {
  updatedAt: 'IDX_documents_project_list',
  createdAt: 'IDX_documents_project_created',
  title: 'IDX_documents_project_title',
};

/**
 * The index a documents-first page walks (one type's documents in updatedAt order), or undefined
 * where it does not apply: another sort, a field sort, or members beyond MAX_MERGED_PROJECTS (a semi-join).
 */
function walkIndex(
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
  sort: DocumentSort,
  perProject: boolean,
) {
  if ((sort !== 'updatedAt' && sort !== '-updatedAt') || filters.fields?.sort || filters.documentTypeId === undefined) {
    return undefined;
  }
  // Every part of a member's page is in one project (a member project, or an upload's: d.projectId = c.projectId).
  if (filters.projectId !== undefined || (!visibility.all && perProject)) return 'IDX_documents_project_type_list';
  return visibility.all ? 'IDX_documents_type_list' : undefined;
}

/** The order of a page's keys (v: the sort value or the relevance, id) in `alias` ('': a union's own columns). */
function keyOrder(dialect: SqlDialect, alias: string, sort: DocumentSort): string {
  const of = alias ? `${alias}.` : '';
  if (sort !== 'relevance') {
    const direction = sort.startsWith('-') ? 'DESC' : 'ASC';
    return `${of}v ${direction}, ${of}id ${direction}`;
  }
  return `${of}v ${dialect === 'mysql' ? 'DESC' : 'ASC'}, ${of}id ASC`;
}

/**
 * The page's keys (v, id) in order, or undefined when nothing is visible. Each visible part is read
 * off its index in order, only keys, at most offset + take of them; with several parts (one per
 * member project) they are merged by UNION ALL and an outer sort of those few keys.
 */
function pageKeys(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
  sort: DocumentSort,
  take: number,
  offset: number,
  after?: DocumentListPosition,
  documentsFirst = false,
): Predicate | undefined {
  const perProject = sort !== 'relevance' && !visibility.all && visibility.projectIds.length <= MAX_MERGED_PROJECTS;
  const parts = visibleParts(visibility, filters, perProject);
  if (parts.length === 0) return undefined;
  const single = parts.length === 1;
  const walk = documentsFirst ? walkIndex(visibility, filters, sort, perProject) : undefined;
  /** How `part` reads documents: MariaDB is told the index; SQLite's planner finds it from the WHERE and ORDER BY. */
  const readOf = (part: Predicate): DocumentsRead => {
    if (walk) return { index: dialect === 'mysql' ? walk : undefined, walk: true };
    if (dialect !== 'mysql' || sort === 'relevance') return {};
    // One range over everything (or a semi-join): walk the sort's index, not a filter's.
    const byFilter = filters.projectId ?? filters.uploadedBy ?? filters.documentTypeId ?? filters.fields;
    const index = EVERYTHING_INDEX[sortColumn(sort)];
    if (single && byFilter === undefined && index && (visibility.all || !perProject)) return { index };
    // Uploads outside the member projects: by project, never the uploader's whole range (they may have many uploads inside).
    if (part[2] && !filters.fields?.sort) return { index: PROJECT_INDEX[sortColumn(sort)] };
    return {};
  };
  const selects: string[] = [];
  const parameters: unknown[] = [];
  for (const part of parts) {
    const built = partQuery(dialect, part, filters, readOf(part));
    let value: string;
    let order: string;
    if (sort === 'relevance') {
      if (!built.score) throw new Error('relevance needs search words');
      value = built.score.sql;
      order = `v ${built.score.descending ? 'DESC' : 'ASC'}, d.id ASC`;
    } else {
      value = sortKey('d', sort, filters).value;
      order = keysetOrder('d', sort, filters);
      if (after) {
        const [condition, values] = afterPosition('d', sort, filters, after);
        built.where.push(condition);
        built.parameters.push(...values);
      }
    }
    const select = `SELECT ${value} AS v, d.id AS id FROM ${built.from} WHERE ${built.where.join(' AND ')} ORDER BY ${order}`;
    parameters.push(...built.parameters);
    if (single) {
      selects.push(`${select} LIMIT ? OFFSET ?`);
      parameters.push(take, offset);
    } else {
      // MariaDB takes a union of parenthesised ordered parts (no temporary table per part); SQLite needs each in a subquery.
      selects.push(
        dialect === 'mysql' ? `(${select} LIMIT ?)` : `SELECT * FROM (${select} LIMIT ?) p${selects.length}`,
      );
      parameters.push(offset + take);
    }
  }
  if (single) return [selects[0], parameters];
  const merged =
    dialect === 'mysql'
      ? `${selects.join(' UNION ALL ')} ORDER BY ${keyOrder(dialect, '', sort)}`
      : `SELECT u.v, u.id FROM (${selects.join(' UNION ALL ')}) u ORDER BY ${keyOrder(dialect, 'u', sort)}`;
  return [`${merged} LIMIT ? OFFSET ?`, [...parameters, take, offset]];
}

/** The current version's extraction state (src/content), read with the page rather than in a statement of its own. */
const CONTENT_FIELDS = ['status', 'pages', 'characters', 'extractedAt', 'error'] as const;
const CONTENT_COLUMNS = CONTENT_FIELDS.map((field) => `dc.${field} AS content_${field}`).join(', ');

/** A listed document's content state as stored (null: no row yet, pending). */
export type ListedContent = ListedContentState | null;

/**
 * One statement for a page of the list and its total: the page's keys off the indexes
 * (pageKeys(); on MariaDB the search's matches, searchPageStatement()), then its rows by primary key
 * (a deferred join: no other column is carried through a derived table), each with the total
 * (`listTotal`). An empty page carries no total: documentTotalStatement() answers it.
 */
export function documentListStatement(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
  sort: DocumentSort,
  take: number,
  offset: number,
  after?: DocumentListPosition,
  plan?: FieldFilterPlan,
): [string, unknown[]] | undefined {
  let keys: Predicate | undefined;
  let total: Predicate;
  if (pageCarriesTotal(dialect, filters)) {
    keys = searchPageStatement(visibility, filters, sort, take, offset, after);
    total = ['p.total', []];
  } else {
    keys = pageKeys(dialect, visibility, filters, sort, take, offset, after, plan?.documentsFirst);
    total = plan ? ['?', [plan.matches]] : documentTotalExpression(dialect, visibility, filters);
  }
  if (!keys) return undefined;
  // MariaDB: the keys first, then each row by primary key, sorted on the keys alone.
  const straight = dialect === 'mysql' ? 'STRAIGHT_JOIN ' : '';
  return [
    `SELECT ${straight}d.*, ${CONTENT_COLUMNS}, ${total[0]} AS listTotal FROM (${keys[0]}) p JOIN documents d ON d.id = p.id ` +
      `LEFT JOIN document_contents dc ON dc.documentId = d.id AND dc.version = d.currentVersion ` +
      `ORDER BY ${keyOrder(dialect, 'p', sort)}`,
    [...total[1], ...keys[1]],
  ];
}

/** The total alone (documentTotalExpression()), for an empty page; the MariaDB search counts its matches. */
export function documentTotalStatement(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): [string, unknown[]] {
  if (pageCarriesTotal(dialect, filters)) {
    const [matches, parameters] = searchMatches(visibility, filters);
    const built = build(dialect, { ...filters, words: undefined });
    return [
      `SELECT COUNT(*) AS listTotal FROM (${matches}) m JOIN ${built.from} ON d.id = m.documentId WHERE ${built.where.join(' AND ')}`,
      [...parameters, ...built.parameters],
    ];
  }
  const [sql, parameters] = documentTotalExpression(dialect, visibility, filters);
  return [`SELECT ${sql} AS listTotal`, parameters];
}

// ---------------------------------------------------------------------------------------------
// Custom field filters: which way a page reads (bench/README.md "Custom field filters").

/** A page filtered by custom fields, planned from its match count read before it (fieldFilterCountsStatement()). */
export interface FieldFilterPlan {
  /** The matches counted up to COUNT_CAP + 1: the page's total. */
  matches: number;
  /** Walk the type's documents in list order, probing each one's values (walksDocuments()). */
  documentsFirst: boolean;
}

/** Field filters without a field sort or a search, in the updatedAt order the type's indexes keep: planned. */
export function plansFieldFilters(filters: DocumentListFilters, sort: DocumentSort): boolean {
  return (
    (filters.fields?.filters.length ?? 0) > 0 &&
    !filters.fields?.sort &&
    !filters.words?.length &&
    (sort === 'updatedAt' || sort === '-updatedAt')
  );
}

/**
 * The field filters' matches up to COUNT_CAP + 1 and the visible documents of the type (kept counts).
 * A member's matches are counted per project (each part up to the cap), so that each part reads the
 * fewer of its project's documents of the type and the field's values (not every value with a membership check).
 */
export function fieldFilterCountsStatement(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): [string, unknown[]] {
  const perProject = !visibility.all && visibility.projectIds.length <= MAX_MERGED_PROJECTS;
  const selects: string[] = [];
  const parameters: unknown[] = [];
  for (const part of visibleParts(visibility, filters, perProject)) {
    const { from, where, parameters: values } = partQuery(dialect, part, filters);
    const select = `SELECT 1 AS one FROM ${from} WHERE ${where.join(' AND ')} LIMIT ?`;
    selects.push(dialect === 'mysql' ? `(${select})` : `SELECT * FROM (${select})`);
    parameters.push(...values, COUNT_CAP + 1);
  }
  const matches = selects.length
    ? `(SELECT COUNT(*) FROM (SELECT 1 FROM (${selects.join(' UNION ALL ')}) u LIMIT ?) m)`
    : '0';
  if (selects.length) parameters.push(COUNT_CAP + 1);
  const { projectId, documentTypeId } = filters;
  const [typed, typedParameters] = documentTotalExpression(dialect, visibility, { projectId, documentTypeId });
  return [`SELECT ${matches} AS matches, ${typed} AS typeDocuments`, [...parameters, ...typedParameters]];
}

/** Index entries a walk may read per match counted: at the cap, a broad filter's matches are many more (bench/README.md). */
export const WALK_RATIO = 4;

/**
 * Documents-first reads about rows × typeDocuments / matches entries of the type's index, probing
 * each one's values by primary key, and stops; value-first reads every match (at least `matches`,
 * the capped count) and sorts them. The walk is taken while it reads at most WALK_RATIO × matches.
 */
export function walksDocuments(matches: number, typeDocuments: number, rows: number): boolean {
  return rows * typeDocuments <= WALK_RATIO * matches * matches;
}

// ---------------------------------------------------------------------------------------------
// The search on MariaDB. document_search copies each document's searched text, trash mark and
// FULLTEXT tokens naming its project and uploader (`scope`; migration DocumentSearchScope), so that
// the MATCH itself can keep to what the caller may read instead of a join per match.

// s.content: the current version's extracted text (src/content).
const SEARCH_MATCH =
  'MATCH (s.title, s.description, s.fileName, s.tags, s.scope, s.content) AGAINST (? IN BOOLEAN MODE)';

/**
 * The tokens are used while the documents they name are few (at most this many projects and, by the
 * optimizer's estimate, documents); beyond, joining the words' matches to documents is cheaper.
 */
export const MAX_SCOPED_PROJECTS = 50;
export const MAX_SCOPED_DOCUMENTS = 20_000;

/**
 * The FULLTEXT tokens in document_search.scope: the document's project (`_p` and the id's hex
 * digits) and its uploader (`_u`…). No search word starts with `_`, so none matches a token.
 */
export function searchScopeToken(kind: 'project' | 'uploader', id: string): string {
  return `_${kind === 'project' ? 'p' : 'u'}${id.replaceAll('-', '').toLowerCase()}`;
}

/**
 * Whether documentPageStatement() answers the total too (a `total` column on every row): the
 * MariaDB search, whose matches are collected once for both. An empty page then says nothing of the
 * total; documentCountStatement() does.
 */
export function pageCarriesTotal(dialect: SqlDialect, filters: DocumentListFilters): boolean {
  return dialect === 'mysql' && (filters.words?.length ?? 0) > 0;
}

/** The projects and uploader whose tokens a search would name; undefined: none (everything, by the words alone). */
function searchScope(
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): { projectIds: readonly string[]; uploader?: string } | undefined {
  if (visibility.all) return filters.projectId === undefined ? undefined : { projectIds: [filters.projectId] };
  const projectIds = visibility.projectIds.filter((id) => filters.projectId === undefined || id === filters.projectId);
  // The caller's uploads in any project: those outside the filter's project the outer filter drops.
  return projectIds.length > MAX_SCOPED_PROJECTS ? undefined : { projectIds, uploader: visibility.userId };
}

/**
 * Before a MariaDB search: how many documents (trashed ones too: their tokens stay) the tokens would
 * name, as the optimizer estimates them from the project and uploader indexes (index dives are
 * cheaper than counting). An EXPLAIN: the sum of its `rows`
 * is the estimate; the search uses the tokens (`byTokens`) when it is at most MAX_SCOPED_DOCUMENTS.
 * Undefined: no tokens to weigh (everything, or too many projects).
 */
export function searchScopeEstimateStatement(
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): [string, unknown[]] | undefined {
  const scope = searchScope(visibility, filters);
  if (!scope) return undefined;
  const parts: Predicate[] = [];
  if (scope.projectIds.length) {
    parts.push([`SELECT 1 FROM documents WHERE projectId IN (${marks(scope.projectIds)})`, [...scope.projectIds]]);
  }
  if (scope.uploader !== undefined) parts.push(['SELECT 1 FROM documents WHERE uploadedBy = ?', [scope.uploader]]);
  return [`EXPLAIN ${parts.map(([sql]) => sql).join(' UNION ALL ')}`, parts.flatMap(([, parameters]) => parameters)];
}

/**
 * The untrashed documents with the words that the caller may read (one row each: documentId,
 * relevance). `byTokens`: the MATCH also requires one of their projects' tokens or their own
 * uploader token, exactly the visible documents, found by the index. Otherwise as the list: the
 * words' matches joined to documents by project, then the caller's uploads elsewhere (from the
 * uploader's index). The relevance is the words' MATCH alone, so the tokens do not change the order.
 */
function searchMatches(visibility: DocumentVisibility, filters: DocumentListFilters): [string, unknown[]] {
  const words = fullTextQuery('mysql', filters.words ?? []);
  const select = `SELECT s.documentId, ${SEARCH_MATCH} AS relevance`;
  const scope = visibility.byTokens ? searchScope(visibility, filters) : undefined;
  if (scope) {
    const tokens = scope.projectIds.map((id) => searchScopeToken('project', id));
    if (scope.uploader !== undefined) tokens.push(searchScopeToken('uploader', scope.uploader));
    return [
      `${select} FROM document_search s WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL`,
      [words, `${words} +(${tokens.join(' ')})`],
    ];
  }
  // A projectId filter applies outside (documentPageStatement's other filters).
  if (visibility.all)
    return [`${select} FROM document_search s WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL`, [words, words]];
  const projects = visibility.projectIds.filter((id) => filters.projectId === undefined || id === filters.projectId);
  const parts: Predicate[] = [];
  if (projects.length) {
    parts.push([
      `${select} FROM document_search s JOIN documents d ON d.id = s.documentId ` +
        `WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL AND d.projectId IN (${marks(projects)})`,
      [words, words, ...projects],
    ]);
  }
  const elsewhere = visibility.projectIds.length ? ` AND d.projectId NOT IN (${marks(visibility.projectIds)})` : '';
  parts.push([
    `${select} FROM documents d JOIN document_search s ON s.documentId = d.id ` +
      `WHERE d.uploadedBy = ?${elsewhere} AND d.deletedAt IS NULL AND ${SEARCH_MATCH}`,
    [words, visibility.userId, ...visibility.projectIds, words],
  ]);
  return [parts.map(([sql]) => sql).join(' UNION ALL '), parts.flatMap(([, parameters]) => parameters)];
}

/**
 * One page of a MariaDB search with the total: the matches are collected once (a few rows per
 * visible document, never the documents the caller may not read), joined to documents for the
 * other filters and the sort, counted by a window over them all, then the keyset position (if
 * any) and the page. Same order as the list: the sort, ties by id (relevance: id ascending).
 */
function searchPageStatement(
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
  sort: DocumentSort,
  take: number,
  offset: number,
  after?: DocumentListPosition,
): [string, unknown[]] {
  const [matches, parameters] = searchMatches(visibility, filters);
  const built = build('mysql', { ...filters, words: undefined });
  const found =
    `SELECT ${SORTED_COLUMNS.map((column) => `d.${column}`).join(', ')}, m.relevance, COUNT(*) OVER () AS total ` +
    `FROM (${matches}) m JOIN ${built.from} ON d.id = m.documentId WHERE ${built.where.join(' AND ')}`;
  parameters.push(...built.parameters);
  let where = '';
  const order = sort === 'relevance' ? 'x.relevance DESC, x.id ASC' : keysetOrder('x', sort, filters);
  if (sort !== 'relevance' && after) {
    const [condition, values] = afterPosition('x', sort, filters, after);
    where = ` WHERE ${condition}`;
    parameters.push(...values);
  }
  return [
    `SELECT x.id, x.total, x.${sort === 'relevance' ? 'relevance' : sortColumn(sort)} AS v FROM (${found}) x${where} ` +
      `ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...parameters, take, offset],
  ];
}

/**
 * Which of `queries` (fullTextQuery() operands) the document's searched text matches, as the
 * search matches it: one part per query, answering its position. SQLite seeks the document's
 * documents_fts row (documents first, CROSS JOIN keeps that order); MariaDB its document_search row.
 */
export function textMatchStatement(
  dialect: SqlDialect,
  documentId: string,
  queries: readonly string[],
): [string, unknown[]] {
  const part =
    dialect === 'sqlite'
      ? 'FROM documents d CROSS JOIN documents_fts f ON f.rowid = d.rowid WHERE d.id = ? AND documents_fts MATCH ?'
      : `FROM document_search s WHERE s.documentId = ? AND ${SEARCH_MATCH}`;
  return [
    queries.map((_, index) => `SELECT ${index} AS i ${part}`).join(' UNION ALL '),
    queries.flatMap((query) => [documentId, query]),
  ];
}

/**
 * The trash: deleted documents the caller could delete (a manager of their project, their uploader
 * while a contributor, or everything with documents:delete), last deleted first.
 */
function trashWhere(everything: boolean, userId: string): [string, unknown[]] {
  if (everything) return ['d.deletedAt IS NOT NULL', []];
  return [
    'd.deletedAt IS NOT NULL AND (' +
      "d.projectId IN (SELECT pm.projectId FROM project_members pm WHERE pm.userId = ? AND pm.role = 'manager') OR " +
      "(d.uploadedBy = ? AND d.projectId IN (SELECT pm.projectId FROM project_members pm WHERE pm.userId = ? AND pm.role = 'contributor')))",
    [userId, userId, userId],
  ];
}

export function trashCountStatement(everything: boolean, userId: string): [string, unknown[]] {
  const [where, parameters] = trashWhere(everything, userId);
  return [`SELECT COUNT(*) AS total FROM documents d WHERE ${where}`, parameters];
}

export function trashPageStatement(
  everything: boolean,
  userId: string,
  take: number,
  offset: number,
): [string, unknown[]] {
  const [where, parameters] = trashWhere(everything, userId);
  return [
    `SELECT d.id FROM documents d WHERE ${where} ORDER BY d.deletedAt DESC, d.id DESC LIMIT ? OFFSET ?`,
    [...parameters, take, offset],
  ];
}

/**
 * The document list, the search and the trash list. Their statements are built above as SQL text
 * because a query builder cannot say them (FULLTEXT and FTS5 matches, one index range per project
 * merged by UNION ALL); they answer ids in order, and TypeORM loads the documents.
 */
@Injectable()
export class DocumentSearchRepository {
  private readonly dialect: SqlDialect;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Document) private readonly documents: Repository<Document>,
  ) {
    this.dialect = dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
  }

  /**
   * Whose documents the user may read besides their projects': one statement answers their member
   * projects and the projects outside them holding their live uploads (from document_counts).
   */
  /** The caller's project ids, when the guard did not read them with the session. */
  async memberProjects(userId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ projectId: string }[]>(
      'SELECT projectId FROM project_members WHERE userId = ?',
      [userId],
    );
    return rows.map((row) => row.projectId);
  }

  /** A date as the documents table stores it, for the statements' parameters (filters, cursor positions). */
  stored(value: Date): unknown {
    const column = this.documents.metadata.findColumnWithPropertyName('updatedAt')!;
    return this.dataSource.driver.preparePersistentValue(value, column);
  }

  /**
   * One page of the list (documentListStatement: one statement for the rows and the total; field
   * filters count first, fieldFilterPlan()) and its total; `totalIsExact` is false only when a
   * capped count (COUNT_CAP) reached its cap.
   */
  async page(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
    sort: DocumentSort,
    take: number,
    offset: number,
    after?: DocumentListPosition,
  ): Promise<{ documents: Document[]; contents: ListedContent[]; total: number; totalIsExact: boolean }> {
    if (pageCarriesTotal(this.dialect, filters)) visibility = await this.searchVisibility(visibility, filters);
    const plan = plansFieldFilters(filters, sort)
      ? await this.fieldFilterPlan(visibility, filters, offset + take)
      : undefined;
    const statement =
      plan?.matches === 0
        ? undefined
        : documentListStatement(this.dialect, visibility, filters, sort, take, offset, after, plan);
    const rows = statement ? await this.dataSource.query<Record<string, unknown>[]>(...statement) : [];
    let counted: number;
    if (plan) counted = plan.matches;
    else if (rows.length > 0) counted = Number(rows[0].listTotal);
    // Nothing visible, or nothing on the first page: nothing matches.
    else if (!statement || (offset === 0 && !after)) counted = 0;
    else {
      const [row] = await this.dataSource.query<{ listTotal: unknown }[]>(
        ...documentTotalStatement(this.dialect, visibility, filters),
      );
      counted = Number(row?.listTotal ?? 0);
    }
    const capped = !totalIsCounted(filters) && !filters.words?.length && counted > COUNT_CAP;
    return {
      documents: rows.map((row) => hydrateRow(this.documents, row)),
      contents: rows.map((row) => this.content(row)),
      total: capped ? COUNT_CAP : counted,
      totalIsExact: !capped,
    };
  }

  /** Whether the document's searched text matches each word list (searchWords()), as page() would match it. */
  async textMatches(tx: Tx, documentId: string, wordLists: readonly (readonly string[])[]): Promise<boolean[]> {
    // No words: no text condition (build()).
    const queries = wordLists.map((words) => (words.length ? fullTextQuery(this.dialect, words) : undefined));
    const distinct = [...new Set(queries.filter((query) => query !== undefined))];
    const matched = new Set<string>();
    // MariaDB's FULLTEXT index is not versioned: a search row being rewritten (content extraction)
    // can match nothing until that write commits, so wait for it by locking the row first.
    if (this.dialect === 'mysql' && distinct.length) {
      await tx.query('SELECT documentId FROM document_search WHERE documentId = ? LOCK IN SHARE MODE', [documentId]);
    }
    // SQLite allows 500 parts in one compound SELECT.
    for (let start = 0; start < distinct.length; start += TEXT_MATCH_CHUNK) {
      const chunk = distinct.slice(start, start + TEXT_MATCH_CHUNK);
      const rows = await tx.query<{ i: number | string }[]>(...textMatchStatement(this.dialect, documentId, chunk));
      for (const row of rows) matched.add(chunk[Number(row.i)]);
    }
    return queries.map((query) => query === undefined || matched.has(query));
  }

  async trashCount(everything: boolean, userId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ total: string | number | null }[]>(
      ...trashCountStatement(everything, userId),
    );
    return Number(row?.total ?? 0);
  }

  async trashPage(everything: boolean, userId: string, take: number, offset: number): Promise<Document[]> {
    return this.load(await this.dataSource.query(...trashPageStatement(everything, userId, take, offset)));
  }

  /** The field filters' total and which way their page reads (walksDocuments()). */
  private async fieldFilterPlan(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
    rows: number,
  ): Promise<FieldFilterPlan> {
    const [row] = await this.dataSource.query<{ matches: unknown; typeDocuments: unknown }[]>(
      ...fieldFilterCountsStatement(this.dialect, visibility, filters),
    );
    const matches = Number(row?.matches ?? 0);
    return { matches, documentsFirst: walksDocuments(matches, Number(row?.typeDocuments ?? 0), rows) };
  }

  /** The MariaDB search's visibility, with `byTokens` when the caller's tokens name few documents (MAX_SCOPED_DOCUMENTS). */
  private async searchVisibility(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
  ): Promise<DocumentVisibility> {
    const statement = searchScopeEstimateStatement(visibility, filters);
    if (!statement) return visibility;
    const plan = await this.dataSource.query<{ rows: string | number | null }[]>(...statement);
    const named = plan.reduce((sum, step) => sum + Number(step.rows ?? 0), 0);
    return { ...visibility, byTokens: named <= MAX_SCOPED_DOCUMENTS };
  }

  /** The content columns of a list row as TypeORM would load them (the driver's date conversion). */
  private content(row: Record<string, unknown>): ListedContent {
    if (row.content_status === null || row.content_status === undefined) return null;
    const metadata = this.dataSource.getMetadata('DocumentContent');
    const values = CONTENT_FIELDS.map((field) => {
      const column = metadata.findColumnWithPropertyName(field)!;
      return [field, this.dataSource.driver.prepareHydratedValue(row[`content_${field}`], column)];
    });
    return Object.fromEntries(values) as ListedContent;
  }

  /** The documents of `rows`, in their order. */
  private async load(rows: readonly { id: string }[]): Promise<Document[]> {
    if (rows.length === 0) return [];
    const byId = new Map(
      (await this.documents.findBy({ id: In(rows.map((row) => row.id)) })).map((document) => [document.id, document]),
    );
    return rows.flatMap((row) => byId.get(row.id) ?? []);
  }
}
