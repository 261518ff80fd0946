// The content phase of `npm run bench` (issue 28's measured part), once per database: 100,000
// documents with ~5 KB of extracted text each, loaded in bulk; content searches against
// bench/content/content-baseline-server.ts (same statements), back to back; then extraction
// throughput (a text PDF, a scanned PDF through OCR) and the list's p99 while it runs against idle.
import { join } from 'node:path';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import type { BenchConfig } from '../config.js';
import { openSqlite } from '../sqlite.js';
import { adminConnection, dropMysql, mysqlTableSizes, mysqlUrl, type LoadTimes } from '../load-mysql.js';
import { removeSqlite } from '../load-sqlite.js';
import { measure, type Measurement } from '../loadrun.js';
import { describeRun, runScenario, signToken, type Scenario, type ScenarioResult } from '../scenarios.js';
import { startServer, type ServerHandle } from '../servers.js';
import { fmt, freePort, httpJson, log, sleep } from '../util.js';
import { docDatabaseConfig } from '../documents/doc-load.js';
import {
  docProjectId,
  docTypeId,
  docUserId,
  makeDocPlan,
  memberProjects,
  type DocPlan,
} from '../documents/doc-datagen.js';
import { sameAnswer, setBufferPool, type DocumentPhaseContext } from '../documents/doc-phase.js';
import { measureListPlans, type ListPlanResult } from '../documents/doc-plans.js';
import { snippet } from '../../src/content/snippets.js';
import type { ContentBenchConfig } from './content-config.js';
import { CONTENT_PHRASE, CONTENT_WORD, contentText } from './content-datagen.js';
import { scannedPdf, textPdf } from './content-files.js';
import { loadMysqlContent, loadSqliteContent } from './content-load.js';

export interface ExtractionResult {
  name: string;
  title: string;
  /** Files extracted to the end while the list ran (and the one in flight when it stopped). */
  files: number;
  pages: number;
  /** Sum over the files of upload answered -> extractedAt. */
  seconds: number;
  pagesPerSecond: number;
  statuses: string[];
  idle: Measurement;
  during: Measurement;
  p99Ratio: number;
}

export interface ContentPhaseResults {
  database: 'mysql' | 'sqlite';
  rows: number;
  projects: number;
  textChars: number;
  rarePerMille: number;
  load: LoadTimes;
  loadSeconds: number;
  sizes?: Record<string, { rows: number; dataMb: number; indexMb: number }>;
  checks: Record<string, string>;
  /** MariaDB: the statements of one search of each server, with counters and EXPLAIN. */
  statements?: ListPlanResult[];
  /** Snippets of one page (20 results, every field) computed in the bench process. */
  snippetPageMs: number;
  scenarios: ScenarioResult[];
  extraction: ExtractionResult[];
}

type Pair = { service: ServerHandle; baseline: ServerHandle };

function wanted(ctx: DocumentPhaseContext, name: string): boolean {
  const names = ctx.config.scenarios?.filter((scenario) => scenario.startsWith('content-'));
  return !names?.length || names.includes(name);
}

async function startContentPair(
  ctx: DocumentPhaseContext,
  content: ContentBenchConfig,
  databaseUrl: string,
): Promise<Pair> {
  mkdirSync(content.doc.storageDir, { recursive: true });
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    script: ctx.serviceMain,
    cwd: ctx.root,
    port,
    env: {
      ...ctx.serviceEnv(databaseUrl, port),
      STORAGE_DIR: content.doc.storageDir,
      ...(content.workers ? { CONTENT_WORKERS: String(content.workers) } : {}),
    },
    probePath: ctx.probe,
    nodeFlags: ctx.nodeFlags,
  });
  try {
    const baselinePort = await freePort();
    const baseline = await startServer({
      name: 'baseline',
      script: join(ctx.root, 'dist/bench/content/content-baseline-server.js'),
      cwd: ctx.root,
      port: baselinePort,
      env: {
        NODE_ENV: 'production',
        BASELINE_DB: ctx.kind,
        JWT_SECRET: ctx.config.jwtSecret,
        DATABASE_URL: databaseUrl,
        PORT: String(baselinePort),
        HOST: '127.0.0.1',
      },
      probePath: ctx.probe,
      nodeFlags: ctx.nodeFlags,
    });
    return { service, baseline };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

function searchScenarios(ctx: DocumentPhaseContext, content: ContentBenchConfig, tokens: string[]): Scenario[] {
  const users = Array.from({ length: content.doc.users }, (_, i) => i + 1);
  const items = (q: string) => users.map((k): [string, number] => [`/api/documents?q=${encodeURIComponent(q)}`, k]);
  const job = (q: string, connections: number) => () => ({
    method: 'GET' as const,
    connections,
    tokens,
    items: items(q),
  });
  return [
    {
      name: 'content-search-latency',
      title: `Content search q=${CONTENT_WORD} (in ${content.rarePerMille / 10} % of the texts only), typical users, one at a time`,
      job: job(CONTENT_WORD, 1),
    },
    {
      name: 'content-search',
      title: `Content search q=${CONTENT_WORD}, ${content.searchConnections} connections`,
      job: job(CONTENT_WORD, content.searchConnections),
    },
    {
      name: 'content-search-phrase',
      title: `Phrase search q="${CONTENT_PHRASE}", one at a time`,
      job: job(`"${CONTENT_PHRASE}"`, 1),
    },
  ].filter((scenario) => wanted(ctx, scenario.name));
}

/** The snippets of one result page computed here (the service and the baseline both make them): ms per page. */
function snippetPageMs(content: ContentBenchConfig): number {
  const texts = Array.from({ length: 20 }, (_, i) => contentText(i + 1, content.textChars, true));
  const words = [CONTENT_WORD];
  const run = () => {
    for (const text of texts)
      for (const value of [text, 'Contract draft supplier', 'legal, finance', 'x.pdf']) snippet(value, words);
  };
  for (let i = 0; i < 20; i++) run();
  const rounds = 50;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) run();
  return (performance.now() - started) / rounds;
}

/** Uploads a file as typical user 1 into one of its projects; answers the document id. */
async function upload(server: ServerHandle, token: string, plan: DocPlan, name: string, bytes: Buffer, type: string) {
  const form = new FormData();
  form.set('title', name);
  form.set('projectId', docProjectId(memberProjects(plan, 1)[0]));
  form.set('documentTypeId', docTypeId(0));
  form.set('file', new Blob([bytes], { type }), name);
  const response = await fetch(`${server.url}/api/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = (await response.json()) as { document?: { id: string; createdAt: string } };
  if (response.status !== 201 || !body.document)
    throw new Error(`upload ${name}: ${response.status} ${JSON.stringify(body)}`);
  return body.document;
}

/** Longest wait for one file's extraction (a stuck job is reported, not waited for). */
const EXTRACTION_WAIT_MS = 5 * 60_000;

/** Waits until the document's content is no longer pending or processing; undefined after `timeoutMs`. */
async function extracted(server: ServerHandle, token: string, id: string, timeoutMs: number) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const answer = await httpJson(`${server.url}/api/documents/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const document = (
      answer.body as {
        document?: {
          createdAt: string;
          content?: { status: string; pages: number | null; extractedAt: string | null };
        };
      }
    ).document;
    const state = document?.content;
    if (state && state.status !== 'pending' && state.status !== 'processing')
      return { createdAt: document.createdAt, ...state };
    if (performance.now() > until) return undefined;
    await sleep(100);
  }
}

/**
 * The list at a fixed rate idle, then again while files are extracted one after another (a new one
 * uploaded as soon as the last is done); pages/s from each file's upload to its extractedAt.
 */
async function extractionScenario(
  ctx: DocumentPhaseContext,
  content: ContentBenchConfig,
  pair: Pair,
  plan: DocPlan,
  tokens: string[],
  name: string,
  title: string,
  file: (n: number) => Promise<Buffer>,
): Promise<ExtractionResult> {
  log(`[${ctx.kind}] ${name}: ${title}`);
  const users = Array.from({ length: content.doc.users }, (_, i) => i + 1);
  const listJob = (seconds: number, tag: string) => ({
    url: pair.service.url,
    method: 'GET' as const,
    connections: content.listConnections,
    overallRate: content.listRate,
    tokens,
    items: users.map((k): [string, number] => ['/api/documents', k]),
    duration: seconds,
    warmup: 1,
    waitForGo: true,
    tag: `${ctx.kind}-${name}-${tag}-${Date.now()}`,
  });
  const idle = await measure(pair.service, ctx.loadWorker, listJob(content.listSeconds, 'idle'), ctx.dbPid);
  log(`  idle list at ${content.listRate} req/s: ${describeRun(idle)}`);
  const files: { pages: number; seconds: number; status: string }[] = [];
  const extracting = { on: true };
  const driver = (async () => {
    for (let n = 0; extracting.on || n === 0; n++) {
      const bytes = await file(n);
      const document = await upload(pair.service, tokens[1], plan, `${name}-${n}.pdf`, bytes, 'application/pdf');
      const state = await extracted(pair.service, tokens[1], document.id, EXTRACTION_WAIT_MS);
      if (!state) {
        log(`  ${name} #${n}: not extracted within ${EXTRACTION_WAIT_MS / 1000} s; the scenario stops here`);
        files.push({ pages: 0, seconds: NaN, status: 'stuck' });
        break;
      }
      const seconds = (Date.parse(state.extractedAt ?? '') - Date.parse(document.createdAt)) / 1000;
      files.push({ pages: state.pages ?? 0, seconds, status: state.status });
      log(`  ${name} #${n}: ${state.status}, ${state.pages} pages in ${fmt(seconds, 2)} s`);
    }
  })();
  const during = await measure(pair.service, ctx.loadWorker, listJob(content.extractSeconds, 'during'), ctx.dbPid);
  extracting.on = false;
  log(`  list during extraction: ${describeRun(during)}`);
  await driver;
  const done = files.filter((f) => f.status !== 'stuck');
  const pages = done.reduce((sum, f) => sum + f.pages, 0);
  const seconds = done.reduce((sum, f) => sum + f.seconds, 0);
  return {
    name,
    title,
    files: files.length,
    pages,
    seconds,
    pagesPerSecond: pages / seconds,
    statuses: [...new Set(files.map((f) => f.status))],
    idle,
    during,
    p99Ratio: during.load.latency.p99 / idle.load.latency.p99,
  };
}

export async function runContentPhase(
  ctx: DocumentPhaseContext,
  content: ContentBenchConfig,
): Promise<ContentPhaseResults> {
  const { kind } = ctx;
  const doc = content.doc;
  const config = {
    ...docDatabaseConfig(ctx.config, doc),
    duration: doc.duration,
    warmup: doc.warmup,
    repeats: doc.repeats,
  };
  const plan = makeDocPlan(doc, ctx.passwordHash);
  const tokens = Array.from({ length: doc.users + 1 }, (_, k) => signToken(config, docUserId(k)));
  const results: ContentPhaseResults = {
    database: kind,
    rows: doc.rows,
    projects: doc.projects,
    textChars: content.textChars,
    rarePerMille: content.rarePerMille,
    load: {},
    loadSeconds: 0,
    checks: {},
    snippetPageMs: snippetPageMs(content),
    scenarios: [],
    extraction: [],
  };
  log(`[${kind} content] snippets of one 20-result page: ${fmt(results.snippetPageMs, 2)} ms (bench process)`);
  const databaseUrl = kind === 'mysql' ? mysqlUrl(config) : `sqlite:${config.sqlitePath}`;
  const phaseCtx = { ...ctx, config };
  rmSync(doc.storageDir, { recursive: true, force: true });
  const restorePool = kind === 'mysql' ? await setBufferPool(config, doc.bufferPoolMb) : undefined;
  try {
    log(`[${kind} content] loading ${doc.rows} documents with ~${content.textChars} characters of text each`);
    const t0 = performance.now();
    if (config.reuse && (await loadedRows(kind, config)) >= doc.rows)
      log(`[${kind} content] BENCH_REUSE=1: reusing the loaded data`);
    else if (kind === 'mysql') await loadMysqlContent(config, plan, content, results.load);
    else await loadSqliteContent(config, plan, content, results.load);
    results.loadSeconds = (performance.now() - t0) / 1000;
    log(`[${kind} content] data loaded in ${results.loadSeconds.toFixed(0)} s`);
    if (kind === 'mysql') results.sizes = await mysqlTableSizes(config);
    const scenarios = searchScenarios(phaseCtx, content, tokens);
    if (kind === 'mysql' && scenarios.length) {
      log(`[${kind} content] the search's statements per request, counters and plans (query proxy)`);
      let proxied: Pair | undefined;
      results.statements = await measureListPlans(
        config,
        (port) => mysqlUrl(config, port),
        async (url) => {
          proxied = await startContentPair(phaseCtx, content, url);
          return [proxied.service, proxied.baseline];
        },
        async () => {
          if (proxied) {
            await proxied.service.stop();
            await proxied.baseline.stop();
          }
        },
        scenarios.slice(0, 1),
      );
      const search = (server: string) =>
        results.statements
          ?.find((captured) => captured.server === server)
          ?.costs.map((cost) => cost.sql)
          .filter((sql) => /MATCH/.test(sql));
      const same = JSON.stringify(search('service')) === JSON.stringify(search('baseline'));
      results.checks['same search statement'] = same
        ? 'identical text'
        : `DIFFERENT: ${search('service')?.[0]?.slice(0, 300)} | ${search('baseline')?.[0]?.slice(0, 300)}`;
      log(`[${kind} content] the search statement of service and baseline: ${results.checks['same search statement']}`);
    }
    const pair = await startContentPair(phaseCtx, content, databaseUrl);
    try {
      for (const scenario of scenarios) {
        const check = await sameAnswer(scenario, pair);
        results.checks[scenario.name] = check;
        log(`[${kind}] ${scenario.name}: response check: ${check}`);
        const result = await runScenario(scenario, kind, pair, config, ctx.loadWorker, ctx.dbPid);
        result.shapeCheck = check;
        results.scenarios.push(result);
      }
      if (wanted(phaseCtx, 'content-extract-pdf')) {
        results.extraction.push(
          await extractionScenario(
            phaseCtx,
            content,
            pair,
            plan,
            tokens,
            'content-extract-pdf',
            `${content.pdfPages}-page text PDF (pdftotext)`,
            async (n) => textPdf(content.pdfPages, n + 1),
          ),
        );
      }
      if (wanted(phaseCtx, 'content-extract-ocr')) {
        const scanned = await scannedPdf(content.ocrPages, 1);
        results.extraction.push(
          await extractionScenario(
            phaseCtx,
            content,
            pair,
            plan,
            tokens,
            'content-extract-ocr',
            `${content.ocrPages}-page scanned PDF (pdftoppm + tesseract)`,
            async () => scanned,
          ),
        );
      }
    } finally {
      await pair.service.stop();
      await pair.baseline.stop();
    }
  } finally {
    await restorePool?.();
    if (!ctx.config.keep) {
      if (kind === 'mysql') await dropMysql(config).catch(() => undefined);
      else removeSqlite(config.sqlitePath);
      rmSync(doc.storageDir, { recursive: true, force: true });
    }
  }
  return results;
}

/** How many texts a kept database (BENCH_KEEP=1) holds; 0 when there is none. */
async function loadedRows(kind: 'mysql' | 'sqlite', config: BenchConfig): Promise<number> {
  try {
    if (kind === 'sqlite') {
      if (!existsSync(config.sqlitePath)) return 0;
      const db = openSqlite(config.sqlitePath);
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM document_contents').get() as { n: number }).n;
      } finally {
        db.close();
      }
    }
    const connection = await adminConnection(config, config.mysqlDatabase);
    try {
      const [[row]] = (await connection.query('SELECT COUNT(*) AS n FROM document_contents')) as unknown as [
        [{ n: number }],
      ];
      return Number(row.n);
    } finally {
      await connection.end();
    }
  } catch {
    return 0;
  }
}

/** Removes the content phases' databases and files (an interrupted run leaves them otherwise). */
export async function dropContentData(ctx: DocumentPhaseContext['config'], content: ContentBenchConfig): Promise<void> {
  const own = docDatabaseConfig(ctx, content.doc);
  if (ctx.mysql) await dropMysql(own);
  if (ctx.sqlite) removeSqlite(own.sqlitePath);
  rmSync(content.doc.storageDir, { recursive: true, force: true });
}
