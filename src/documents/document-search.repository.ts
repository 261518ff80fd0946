import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
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
export type DocumentSort = (typeof DOCUMENT_SORTS)[number];
export type KeysetSort = Exclude<DocumentSort, 'relevance'>;

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
}

/**
 * Whose documents: everything (documents:read), or those of the user's projects (`projectIds`, read
 * beforehand) and their own uploads elsewhere.
 */
export type DocumentVisibility = ({ all: true } | { all: false; userId: string; projectIds: readonly string[] }) & {
  /** MariaDB search: find them by their scope tokens in the MATCH (see searchScopeEstimateStatement()). */
  byTokens?: boolean;
};

/**
 * Up to this many member projects, a page without q is a merge of one index range per project (each
 * reads at most offset + limit entries of IDX_documents_project_list, already in order); beyond, one
 * range over all of them and a sort.
 */
export const MAX_MERGED_PROJECTS = 50;

type Predicate = [sql: string, parameters: unknown[]];

const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/**
 * The visible documents as disjoint parts (their union is what the caller may read): one per member
 * project when `perProject`, else all member projects at once; then the caller's uploads outside them.
 * Parts a projectId filter rules out are left out.
 */
function visibleParts(visibility: DocumentVisibility, filters: DocumentListFilters, perProject: boolean): Predicate[] {
  if (visibility.all) return [['1 = 1', []]];
  const projects = visibility.projectIds.filter((id) => filters.projectId === undefined || id === filters.projectId);
  const parts: Predicate[] = [];
  if (perProject) for (const id of projects) parts.push(['d.projectId = ?', [id]]);
  else if (projects.length) parts.push([`d.projectId IN (${marks(projects)})`, [...projects]]);
  parts.push(
    visibility.projectIds.length
      ? [
          `d.uploadedBy = ? AND d.projectId NOT IN (${marks(visibility.projectIds)})`,
          [visibility.userId, ...visibility.projectIds],
        ]
      : ['d.uploadedBy = ?', [visibility.userId]],
  );
  return parts;
}

/** One SELECT (or COUNT) over `part` with the filters: FROM, WHERE and their parameters. */
function partQuery(dialect: SqlDialect, part: Predicate, filters: DocumentListFilters): Built {
  const built = build(dialect, filters);
  built.where.push(part[0]);
  built.parameters.push(...part[1]);
  return built;
}

/** The (sort value, id) of the last item of a page, in stored form. */
export interface DocumentListPosition {
  value: unknown;
  id: string;
}

const SORT_COLUMN: Record<KeysetSort, { column: string; descending: boolean }> = {
  '-updatedAt': { column: 'updatedAt', descending: true },
  updatedAt: { column: 'updatedAt', descending: false },
  '-createdAt': { column: 'createdAt', descending: true },
  createdAt: { column: 'createdAt', descending: false },
  title: { column: 'title', descending: false },
  '-title': { column: 'title', descending: true },
};

export function sortColumn(sort: KeysetSort): string {
  return SORT_COLUMN[sort].column;
}

/** ORDER BY of a keyset sort on the rows of `alias`: the sort column, ties by id in the same direction. */
function keysetOrder(alias: string, sort: KeysetSort): string {
  const { column, descending } = SORT_COLUMN[sort];
  const direction = descending ? 'DESC' : 'ASC';
  return `${alias}.${column} ${direction}, ${alias}.id ${direction}`;
}

/** The rows of `alias` that come after `after` in keysetOrder(alias, sort). */
function afterPosition(alias: string, sort: KeysetSort, after: DocumentListPosition): Predicate {
  const { column, descending } = SORT_COLUMN[sort];
  const beyond = descending ? '<' : '>';
  return [
    `(${alias}.${column} ${beyond} ? OR (${alias}.${column} = ? AND ${alias}.id ${beyond} ?))`,
    [after.value, after.value, after.id],
  ];
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

function build(dialect: SqlDialect, filters: DocumentListFilters): Built {
  const where = ['d.deletedAt IS NULL'];
  const parameters: unknown[] = [];
  let from = 'documents d';
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
  return { from, where, parameters, score };
}

/** How many documents match (exact): the sum over the disjoint visible parts, each an index range. */
export function documentCountStatement(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
): [string, unknown[]] {
  if (pageCarriesTotal(dialect, filters)) {
    const [matches, parameters] = searchMatches(visibility, filters);
    const built = build(dialect, { ...filters, words: undefined });
    return [
      `SELECT COUNT(*) AS total FROM (${matches}) m JOIN ${built.from} ON d.id = m.documentId WHERE ${built.where.join(' AND ')}`,
      [...parameters, ...built.parameters],
    ];
  }
  const counts = visibleParts(visibility, filters, false).map((part) => {
    const { from, where, parameters } = partQuery(dialect, part, filters);
    return [`SELECT COUNT(*) AS n FROM ${from} WHERE ${where.join(' AND ')}`, parameters] as const;
  });
  return [
    `SELECT SUM(n) AS total FROM (${counts.map(([sql]) => sql).join(' UNION ALL ')}) counts`,
    counts.flatMap(([, parameters]) => parameters),
  ];
}

/**
 * One page: `take` rows from `offset`, or (keyset sorts) right after `after`. Each visible part is
 * read in order up to offset + take rows (LIMIT inside), then the parts are merged: with few member
 * projects one index range per project, so no part reads or sorts more than the page needs.
 * Relevance needs words and pages by OFFSET only.
 */
export function documentPageStatement(
  dialect: SqlDialect,
  visibility: DocumentVisibility,
  filters: DocumentListFilters,
  sort: DocumentSort,
  take: number,
  offset: number,
  after?: DocumentListPosition,
): [string, unknown[]] {
  if (pageCarriesTotal(dialect, filters)) return searchPageStatement(visibility, filters, sort, take, offset, after);
  const columns = SORTED_COLUMNS.map((column) => `d.${column}`).join(', ');
  const perProject = sort !== 'relevance' && !visibility.all && visibility.projectIds.length <= MAX_MERGED_PROJECTS;
  const selects: string[] = [];
  const parameters: unknown[] = [];
  for (const part of visibleParts(visibility, filters, perProject)) {
    const built = partQuery(dialect, part, filters);
    let order: string;
    let score = '';
    if (sort === 'relevance') {
      if (!built.score) throw new Error('relevance needs search words');
      score = `, ${built.score.sql} AS relevance`;
      parameters.push(...built.score.parameters);
      order = `relevance ${built.score.descending ? 'DESC' : 'ASC'}, d.id ASC`;
    } else {
      order = keysetOrder('d', sort);
      if (after) {
        const [condition, values] = afterPosition('d', sort, after);
        built.where.push(condition);
        built.parameters.push(...values);
      }
    }
    selects.push(
      `SELECT * FROM (SELECT ${columns}${score} FROM ${built.from} WHERE ${built.where.join(' AND ')} ` +
        `ORDER BY ${order} LIMIT ?) p${selects.length}`,
    );
    parameters.push(...built.parameters, offset + take);
  }
  const outerOrder =
    sort === 'relevance' ? `u.relevance ${dialect === 'mysql' ? 'DESC' : 'ASC'}, u.id ASC` : keysetOrder('u', sort);
  return [
    `SELECT u.id FROM (${selects.join(' UNION ALL ')}) u ORDER BY ${outerOrder} LIMIT ? OFFSET ?`,
    [...parameters, take, offset],
  ];
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
  const order = sort === 'relevance' ? 'x.relevance DESC, x.id ASC' : keysetOrder('x', sort);
  if (sort !== 'relevance' && after) {
    const [condition, values] = afterPosition('x', sort, after);
    where = ` WHERE ${condition}`;
    parameters.push(...values);
  }
  return [
    `SELECT x.id, x.total FROM (${found}) x${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...parameters, take, offset],
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

  /** The projects the user is a member of (any role): whose documents they may read. */
  async memberProjectIds(userId: string): Promise<string[]> {
    const members = await this.dataSource
      .getRepository(ProjectMember)
      .find({ select: { projectId: true }, where: { userId }, order: { projectId: 'ASC' } });
    return members.map((member) => member.projectId);
  }

  /** A date as the documents table stores it, for the statements' parameters (filters, cursor positions). */
  stored(value: Date): unknown {
    const column = this.documents.metadata.findColumnWithPropertyName('updatedAt')!;
    return this.dataSource.driver.preparePersistentValue(value, column);
  }

  /** How many documents the list's filters match (exact). */
  async count(visibility: DocumentVisibility, filters: DocumentListFilters): Promise<number> {
    const [row] = await this.dataSource.query<{ total: string | number | null }[]>(
      ...documentCountStatement(this.dialect, visibility, filters),
    );
    return Number(row?.total ?? 0);
  }

  /**
   * One page of the list (documentPageStatement) and the exact total of the filters' matches. The
   * MariaDB search answers both in one statement (pageCarriesTotal); otherwise the count comes
   * first and a page past the end is not read.
   */
  async page(
    visibility: DocumentVisibility,
    filters: DocumentListFilters,
    sort: DocumentSort,
    take: number,
    offset: number,
    after?: DocumentListPosition,
  ): Promise<{ documents: Document[]; total: number }> {
    const carriesTotal = pageCarriesTotal(this.dialect, filters);
    if (carriesTotal) visibility = await this.searchVisibility(visibility, filters);
    const read = () =>
      this.dataSource.query<{ id: string; total?: string | number }[]>(
        ...documentPageStatement(this.dialect, visibility, filters, sort, take, offset, after),
      );
    if (!carriesTotal) {
      const total = await this.count(visibility, filters);
      if (offset >= total) return { documents: [], total };
      return { documents: await this.load(await read()), total };
    }
    const rows = await read();
    // Nothing on this page: it is the total only when it was the first.
    if (rows.length === 0) {
      return { documents: [], total: offset === 0 && !after ? 0 : await this.count(visibility, filters) };
    }
    return { documents: await this.load(rows), total: Number(rows[0].total) };
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

  /** The documents of `rows`, in their order. */
  private async load(rows: readonly { id: string }[]): Promise<Document[]> {
    if (rows.length === 0) return [];
    const byId = new Map(
      (await this.documents.findBy({ id: In(rows.map((row) => row.id)) })).map((document) => [document.id, document]),
    );
    return rows.flatMap((row) => byId.get(row.id) ?? []);
  }
}
