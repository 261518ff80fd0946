// The floor of a content search on this stack, in the documents baseline's pattern
// (bench/documents/doc-baseline-server.ts): plain fastify + mysql2 (or better-sqlite3) answering
// GET /api/documents?q=… with the statements the service sends for it, in the same order: the
// token check (bench/baseline-common.ts), the caller's projects, on MariaDB the optimizer's estimate
// of the documents their scope tokens name, the page with its total off the full-text index
// (MariaDB FULLTEXT document_search, SQLite FTS5 documents_fts, each with the content column), then
// the page's content states with the texts from document_contents; snippets by the service's own pure
// helper (src/content/snippets.ts). The SQL is written out here, not imported; the bench checks on
// MariaDB that both servers send the same statements (content-phase.ts).
import {
  authenticate,
  createApp,
  db,
  holds,
  HttpError,
  iso,
  jsonColumn,
  kind,
  listen,
  type Caller,
} from '../baseline-common.js';
import { snippet } from '../../src/content/snippets.js';

type Row = Record<string, unknown>;

/** The API's document, field for field. */
function documentJson(row: Row) {
  return {
    id: row.id as string,
    projectId: row.projectId,
    documentTypeId: row.documentTypeId,
    title: row.title as string,
    description: row.description as string,
    fileName: row.fileName as string,
    fileSize: Number(row.fileSize),
    mimeType: row.mimeType,
    currentVersion: Number(row.currentVersion),
    status: row.status,
    tags: JSON.parse(row.tags as string) as string[],
    metadata: JSON.parse(row.metadata as string) as unknown,
    fields: jsonColumn(row.fields) ?? {},
    uploadedBy: row.uploadedBy,
    createdAt: iso(row.createdAt as string),
    updatedAt: iso(row.updatedAt as string),
    sha256: row.sha256,
  };
}

/** The page's content states, joined as the service's list statement joins them. */
const CONTENT_COLUMNS = ['status', 'pages', 'characters', 'extractedAt', 'error']
  .map((field) => `dc.${field} AS content_${field}`)
  .join(', ');
const CONTENT_JOIN = 'LEFT JOIN document_contents dc ON dc.documentId = d.id AND dc.version = d.currentVersion';

const WORDS = /[\p{L}\p{N}\p{M}]+/gu;

/** The contract's search items: words (all but the last at least 3 long), "quoted phrases". */
function searchWords(q: string): string[] {
  const items: string[] = [];
  q.normalize('NFKC')
    .split('"')
    .forEach((part, index) => {
      const words = part.match(WORDS) ?? [];
      if (index % 2 === 1 && words.length > 1) items.push(words.join(' '));
      else items.push(...words);
    });
  const last = items.length - 1;
  return items.filter((item, index) => item.includes(' ') || index === last || Array.from(item).length >= 3);
}

/** MariaDB BOOLEAN MODE "+w1 +w2*" / FTS5 "\"w1\" \"w2\"*"; a phrase is quoted, never a prefix. */
function matchOperand(words: readonly string[]): string {
  const last = words.length - 1;
  return words
    .map((word, index) => {
      const phrase = word.includes(' ');
      const prefix = index === last && !phrase ? '*' : '';
      if (kind === 'sqlite') return `"${word.replaceAll('"', '""')}"${prefix}`;
      return phrase ? `+"${word}"` : `+${word}${prefix}`;
    })
    .join(' ');
}

const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

const SCOPE_SQL = `SELECT pm.projectId, 1 AS member FROM project_members pm WHERE pm.userId = ?
       UNION ALL
       SELECT c.projectId, 0 AS member FROM document_counts c
       WHERE c.uploadedBy = ? AND c.status = '' AND c.documentTypeId = '' AND c.total > 0
         AND NOT EXISTS (SELECT 1 FROM project_members pm WHERE pm.userId = ? AND pm.projectId = c.projectId)`;

const SEARCH_MATCH =
  'MATCH (s.title, s.description, s.fileName, s.tags, s.scope, s.content) AGAINST (? IN BOOLEAN MODE)';
const scopeToken = (prefix: 'p' | 'u', id: string) => `_${prefix}${id.replaceAll('-', '').toLowerCase()}`;
/** Tokens are used up to this many projects and this estimate of the documents they name. */
const MAX_SCOPED_PROJECTS = 50;
const MAX_SCOPED_DOCUMENTS = 20_000;

/** MariaDB: the matching document ids with their relevance (the caller's scope tokens in the MATCH when few). */
async function mysqlMatches(
  caller: Caller,
  everything: boolean,
  scope: Scope,
  operand: string,
): Promise<[string, unknown[]]> {
  const select = `SELECT s.documentId, ${SEARCH_MATCH} AS relevance`;
  const byIndex = `${select} FROM document_search s WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL`;
  if (everything) return [byIndex, [operand, operand]];
  if (scope.projectIds.length <= MAX_SCOPED_PROJECTS) {
    const estimate = [
      ...(scope.projectIds.length ? [`SELECT 1 FROM documents WHERE projectId IN (${marks(scope.projectIds)})`] : []),
      'SELECT 1 FROM documents WHERE uploadedBy = ?',
    ];
    const plan = await db.all<{ rows: unknown }>(`EXPLAIN ${estimate.join(' UNION ALL ')}`, [
      ...scope.projectIds,
      caller.id,
    ]);
    if (plan.reduce((sum, step) => sum + Number(step.rows ?? 0), 0) <= MAX_SCOPED_DOCUMENTS) {
      const tokens = [...scope.projectIds.map((id) => scopeToken('p', id)), scopeToken('u', caller.id)];
      return [byIndex, [operand, `${operand} +(${tokens.join(' ')})`]];
    }
  }
  const parts: [string, unknown[]][] = [];
  if (scope.projectIds.length) {
    parts.push([
      `${select} FROM document_search s JOIN documents d ON d.id = s.documentId ` +
        `WHERE ${SEARCH_MATCH} AND s.deletedAt IS NULL AND d.projectId IN (${marks(scope.projectIds)})`,
      [operand, operand, ...scope.projectIds],
    ]);
  }
  const elsewhere = scope.projectIds.length ? ` AND d.projectId NOT IN (${marks(scope.projectIds)})` : '';
  parts.push([
    `${select} FROM documents d JOIN document_search s ON s.documentId = d.id ` +
      `WHERE d.uploadedBy = ?${elsewhere} AND d.deletedAt IS NULL AND ${SEARCH_MATCH}`,
    [operand, caller.id, ...scope.projectIds, operand],
  ]);
  return [parts.map(([sql]) => sql).join(' UNION ALL '), parts.flatMap(([, p]) => p)];
}

interface Scope {
  projectIds: string[];
  elsewhere: string[];
}

/** One statement: the page's rows (relevance order) each with the total. */
async function searchPage(caller: Caller, everything: boolean, words: string[], take: number, offset: number) {
  let scope: Scope = { projectIds: [], elsewhere: [] };
  if (!everything) {
    const rows = await db.all<{ projectId: string; member: unknown }>(SCOPE_SQL, [caller.id, caller.id, caller.id]);
    scope = {
      projectIds: rows
        .filter((row) => Number(row.member) === 1)
        .map((row) => row.projectId)
        .sort(),
      elsewhere: rows
        .filter((row) => Number(row.member) === 0)
        .map((row) => row.projectId)
        .sort(),
    };
  }
  const operand = matchOperand(words);
  if (kind === 'mysql') {
    const [matches, parameters] = await mysqlMatches(caller, everything, scope, operand);
    const found =
      'SELECT d.id, d.title, d.createdAt, d.updatedAt, m.relevance, COUNT(*) OVER () AS total ' +
      `FROM (${matches}) m JOIN documents d ON d.id = m.documentId WHERE d.deletedAt IS NULL`;
    const keys = `SELECT x.id, x.total, x.relevance AS v FROM (${found}) x ORDER BY x.relevance DESC, x.id ASC LIMIT ? OFFSET ?`;
    return db.all<Row>(
      `SELECT STRAIGHT_JOIN d.*, ${CONTENT_COLUMNS}, p.total AS listTotal FROM (${keys}) p JOIN documents d ON d.id = p.id ${CONTENT_JOIN} ORDER BY p.v DESC, p.id ASC`,
      [...parameters, take, offset],
    );
  }
  // SQLite: FTS5 joined to documents, the caller's projects by a semi-join (and their uploads elsewhere).
  const where = ['d.deletedAt IS NULL', 'documents_fts MATCH ?'];
  const parameters: unknown[] = [operand];
  if (!everything) {
    const member = 'EXISTS (SELECT 1 FROM project_members pm WHERE pm.userId = ? AND pm.projectId = d.projectId)';
    if (scope.elsewhere.length) {
      const own = `d.uploadedBy = ? AND d.projectId IN (${marks(scope.elsewhere)})`;
      where.push(scope.projectIds.length ? `(${member} OR (${own}))` : own);
      parameters.push(...(scope.projectIds.length ? [caller.id] : []), caller.id, ...scope.elsewhere);
    } else if (scope.projectIds.length) {
      where.push(member);
      parameters.push(caller.id);
    } else return [];
  } else where.push('1 = 1');
  const from = 'documents d JOIN documents_fts f ON f.rowid = d.rowid';
  const keys = `SELECT bm25(documents_fts) AS v, d.id AS id FROM ${from} WHERE ${where.join(' AND ')} ORDER BY v ASC, d.id ASC LIMIT ? OFFSET ?`;
  const total = `(SELECT COUNT(*) FROM (SELECT 1 FROM ${from} WHERE ${where.join(' AND ')}) m)`;
  return db.all<Row>(
    `SELECT d.*, ${CONTENT_COLUMNS}, ${total} AS listTotal FROM (${keys}) p JOIN documents d ON d.id = p.id ${CONTENT_JOIN} ORDER BY p.v ASC, p.id ASC`,
    [...parameters, ...parameters, take, offset],
  );
}

/** The content state of each listed version with the text of the indexed ones, in one statement (as the service). */
async function contentOf(keys: { id: string; version: number }[]) {
  const rows = await db.all<Row & { text: string | null }>(
    "SELECT c.documentId, c.version, c.status, c.pages, c.characters, c.extractedAt, c.error, CASE WHEN c.status = 'indexed' THEN c.text END AS text " +
      `FROM document_contents c WHERE ${keys.map(() => '(c.documentId = ? AND c.version = ?)').join(' OR ')}`,
    keys.flatMap((key) => [key.id, key.version]),
  );
  const key = (id: unknown, version: unknown) => `${String(id)}:${Number(version)}`;
  return {
    states: new Map(rows.map((row) => [key(row.documentId, row.version), row])),
    // mysql2 parses MariaDB's JSON columns itself; better-sqlite3 answers the stored JSON text.
    texts: new Map(
      rows.map((row) => [
        key(row.documentId, row.version),
        row.text === null ? '' : kind === 'sqlite' ? (JSON.parse(row.text) as string) : row.text,
      ]),
    ),
  };
}

const app = createApp();

app.get<{ Querystring: { q?: string; page: number; limit: number } }>(
  '/api/documents',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          q: { type: 'string', minLength: 1, maxLength: 200 },
          page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
        required: ['q'],
      },
    },
  },
  async (request) => {
    const caller = await authenticate(request);
    const { q = '', page, limit } = request.query;
    const words = searchWords(q);
    if (words.length === 0) throw new HttpError(400, 'validation_failed', 'q has no word');
    const rows = await searchPage(caller, holds(caller, 'documents', 'read'), words, limit + 1, (page - 1) * limit);
    const total = rows.length ? Number(rows[0].listTotal) : 0;
    const pagination = {
      page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
      nextCursor: null,
      totalIsExact: true,
    };
    const documents = rows.slice(0, limit).map(documentJson);
    if (documents.length === 0) return { documents, pagination };
    const { states, texts } = await contentOf(documents.map((d) => ({ id: d.id, version: d.currentVersion })));
    return {
      documents: documents.map((document) => {
        const key = `${document.id}:${document.currentVersion}`;
        const state = states.get(key);
        const fields: [string, string][] = [
          ['title', document.title],
          ['description', document.description],
          ['tags', document.tags.join(', ')],
          ['fileName', document.fileName],
          ['content', texts.get(key) ?? ''],
        ];
        return {
          ...document,
          content: {
            status: state?.status ?? 'pending',
            pages: state?.pages ?? null,
            characters: state?.characters ?? null,
            extractedAt: state?.extractedAt ? iso(state.extractedAt as string) : null,
            error: state?.error ?? null,
          },
          matches: fields.flatMap(([field, value]) => {
            const found = snippet(value, words);
            return found === null ? [] : [{ field, snippet: found }];
          }),
        };
      }),
      pagination,
    };
  },
);

await listen(app);
