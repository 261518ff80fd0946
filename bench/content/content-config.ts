// Settings of the content bench (issue 28's measured part), read from the environment once.
import { int, type BenchConfig } from '../config.js';
import type { DocBenchConfig } from '../documents/doc-config.js';

export interface ContentBenchConfig {
  /** `only`: run just the content phases (also when every BENCH_SCENARIOS name is content-*); `0`: skip them. */
  mode: 'on' | 'off' | 'only';
  /** The documents bench's settings for this phase's own data (rows, projects, users, own database and files). */
  doc: DocBenchConfig;
  /** Characters of extracted text per document, and the share (per mille) holding the search word. */
  textChars: number;
  rarePerMille: number;
  /** Pages of the text PDF and of the scanned PDF of the extraction scenarios. */
  pdfPages: number;
  ocrPages: number;
  /** The list's fixed rate (req/s) measured idle and while extraction runs, over this many connections. */
  listRate: number;
  listConnections: number;
  /** Seconds of the idle list run, and at most this many seconds of extraction (whole files) per scenario. */
  listSeconds: number;
  extractSeconds: number;
  searchConnections: number;
  /** The service's CONTENT_WORKERS (its default when 0). */
  workers: number;
}

export function loadContentBenchConfig(config: BenchConfig, doc: DocBenchConfig): ContentBenchConfig {
  const raw = (process.env.BENCH_CONTENT ?? '1').trim();
  const named = config.scenarios ?? [];
  const onlyNamed = named.length > 0 && named.every((name) => name.startsWith('content-'));
  const mode = raw === 'only' || onlyNamed ? 'only' : raw === '0' || raw === 'false' ? 'off' : 'on';
  const projects = int('BENCH_CONTENT_PROJECTS', 100, 10);
  return {
    mode,
    doc: {
      ...doc,
      rows: int('BENCH_CONTENT_ROWS', 100_000, projects),
      projects,
      // No growth stages here: every project is loaded at once and the typical users spread over all.
      stage1Projects: projects,
      duration: int('BENCH_CONTENT_DURATION', 5, 1),
      warmup: int('BENCH_CONTENT_WARMUP', 1, 0),
      repeats: int('BENCH_CONTENT_REPEATS', 3, 1),
      mysqlDatabase: `${config.mysqlDatabase}_content`,
      sqlitePath: config.sqlitePath.replace(/(\.sqlite)?$/, '-content.sqlite'),
      storageDir: process.env.BENCH_CONTENT_STORAGE_DIR || '/tmp/contentbench/files',
    },
    textChars: int('BENCH_CONTENT_TEXT_CHARS', 5_000, 100),
    rarePerMille: int('BENCH_CONTENT_RARE_PER_MILLE', 8, 1),
    pdfPages: int('BENCH_CONTENT_PDF_PAGES', 100, 1),
    ocrPages: int('BENCH_CONTENT_OCR_PAGES', 10, 1),
    listRate: int('BENCH_CONTENT_LIST_RATE', 20, 1),
    listConnections: int('BENCH_CONTENT_LIST_CONNECTIONS', 4, 1),
    listSeconds: int('BENCH_CONTENT_LIST_SECONDS', 15, 2),
    extractSeconds: int('BENCH_CONTENT_EXTRACT_SECONDS', 30, 2),
    searchConnections: int('BENCH_CONTENT_SEARCH_CONNECTIONS', 4, 1),
    workers: int('BENCH_CONTENT_WORKERS', 0, 0),
  };
}

export function describeContentConfig(content: ContentBenchConfig): string {
  const { doc } = content;
  return [
    `content phase=${content.mode} (BENCH_CONTENT=1|0|only)`,
    `${doc.rows} documents in ${doc.projects} projects with ~${content.textChars} characters of text each, the search word in ${content.rarePerMille / 10} % (BENCH_CONTENT_ROWS, BENCH_CONTENT_PROJECTS, BENCH_CONTENT_TEXT_CHARS, BENCH_CONTENT_RARE_PER_MILLE)`,
    `search runs of ${doc.duration} s after ${doc.warmup} s, ${doc.repeats} rounds (BENCH_CONTENT_DURATION, BENCH_CONTENT_WARMUP, BENCH_CONTENT_REPEATS)`,
    `extraction: ${content.pdfPages}-page text PDF, ${content.ocrPages}-page scanned PDF, list at ${content.listRate} req/s over ${content.listConnections} connections (BENCH_CONTENT_PDF_PAGES, BENCH_CONTENT_OCR_PAGES, BENCH_CONTENT_LIST_RATE)`,
    `MariaDB database ${doc.mysqlDatabase}, SQLite ${doc.sqlitePath}, files under ${doc.storageDir}`,
  ].join('\n  ');
}
