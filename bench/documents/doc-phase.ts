// The documents phase of `npm run bench` (issue 11's performance part), once per database: loads
// projects, memberships and documents, measures the list's growth (stage 1 -> full), checks the
// list's plans, then runs list / by project / search / read / upload / download scenarios against
// bench/documents/doc-baseline-server.ts, back to back, in the same run.
import { fork } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig } from '../config.js';
import { adminConnection, dropMysql, mysqlTableSizes, mysqlUrl, type LoadTimes } from '../load-mysql.js';
import { removeSqlite } from '../load-sqlite.js';
import { openSqlite } from '../sqlite.js';
import { existsSync } from 'node:fs';
import { runScenario, signToken, type Scenario, type ScenarioResult } from '../scenarios.js';
import { rssMb, startServer, track, type ServerHandle } from '../servers.js';
import { cpuSeconds, fmt, freePort, httpJson, log, median, procStatusKb, resetPeakRss, rssSampler } from '../util.js';
import type { DocBenchConfig } from './doc-config.js';
import {
  AMOUNT_MAX,
  FIELD_TYPE,
  RARE_WORD,
  REGIONS,
  docDocumentId,
  docProjectId,
  docTypeId,
  docReader,
  docUserId,
  documentsInStage,
  makeDocPlan,
  memberProjects,
  type DocPlan,
} from './doc-datagen.js';
import {
  createSqliteDocSchema,
  docDatabaseConfig,
  loadMysqlDocBase,
  loadMysqlDocuments,
  loadSqliteDocs,
} from './doc-load.js';
import { measureListPlans, type ListPlanResult } from './doc-plans.js';
import type { TransferJob, TransferResult } from './transfer-worker.js';

export interface DocumentPhaseContext {
  kind: 'mysql' | 'sqlite';
  config: BenchConfig;
  doc: DocBenchConfig;
  /** Root of the private dist/ copy the bench runs from. */
  root: string;
  serviceMain: string;
  serviceBMain?: string;
  probe: string;
  loadWorker: string;
  nodeFlags: string[];
  passwordHash: string;
  /** The notification bench's service environment (JWT secret, throttles, BENCH_SERVICE_ENV...). */
  serviceEnv(databaseUrl: string, port: number): Record<string, string>;
  dbPid?: number;
}

export interface TransferMeasurement {
  server: string;
  result: TransferResult;
  cpuPerRequestUs: number;
  peakRssMb: number;
}

export interface TransferScenarioResult {
  name: string;
  title: string;
  runs: { service: TransferMeasurement[]; baseline: TransferMeasurement[] };
  /** Medians over the runs, and of the per-pair service/baseline ratios. */
  service: { rps: number; mibPerSecond: number; p50: number; p99: number; peakRssMb: number };
  baseline: { rps: number; mibPerSecond: number; p50: number; p99: number; peakRssMb: number };
  rpsRatio: number;
  throughputRatio: number;
}

export interface BigUploadResult {
  bytes: number;
  status: number;
  seconds: number;
  rssBeforeMb: number;
  peakRssMb: number;
  growthMb: number;
}

export interface DocumentPhaseResults {
  database: 'mysql' | 'sqlite';
  rows: number;
  projects: number;
  /** File sizes of the transfer scenarios. */
  uploadBytes: number;
  downloadBytes: number;
  load: LoadTimes;
  loadSeconds: number;
  sizes?: Record<string, { rows: number; dataMb: number; indexMb: number }>;
  /** MariaDB innodb_buffer_pool_size during the phase (MiB). */
  bufferPoolMb?: number;
  growth: { name: string; stage1Rows: number; fullRows: number; stage1: ScenarioResult; full?: ScenarioResult }[];
  scenarios: ScenarioResult[];
  /** MariaDB: statements per list request and what each costs (doc-plans.ts). */
  listPlans?: ListPlanResult[];
  transfers: TransferScenarioResult[];
  bigUpload?: { service: BigUploadResult; baseline: BigUploadResult };
  checks: Record<string, string>;
}

/** BENCH_SCENARIOS may name doc-* scenarios; with none of them named, all run. */
function wanted(config: BenchConfig, name: string): boolean {
  const names = config.scenarios?.filter((scenario) => scenario.startsWith('doc-'));
  return !names?.length || names.includes(name);
}

/** Tokens of user 0 (every project's manager), the typical users and the reader (docReader()). */
function signDocTokens(config: BenchConfig, users: number): string[] {
  return Array.from({ length: users + 2 }, (_, k) => signToken(config, docUserId(k)));
}

type Pair = { service: ServerHandle; serviceB?: ServerHandle; baseline: ServerHandle };

async function startDocPair(ctx: DocumentPhaseContext, databaseUrl: string): Promise<Pair> {
  const { doc } = ctx;
  mkdirSync(doc.storageDir, { recursive: true });
  const startService = async (name: string, script: string) => {
    const port = await freePort();
    return startServer({
      name,
      script,
      cwd: ctx.root,
      port,
      env: {
        ...ctx.serviceEnv(databaseUrl, port),
        STORAGE_DIR: doc.storageDir,
        // Room for the big upload and the download file.
        UPLOAD_MAX_BYTES: String(Math.max(doc.bigUploadBytes, doc.downloadBytes, doc.uploadBytes) + 1048576),
      },
      probePath: ctx.probe,
      nodeFlags: ctx.nodeFlags,
    });
  };
  const service = await startService('service', ctx.serviceMain);
  let serviceB: ServerHandle | undefined;
  try {
    // The A/B build (BENCH_SERVICE_B_MAIN) takes part in the read scenarios.
    if (ctx.serviceBMain) serviceB = await startService('serviceB', ctx.serviceBMain);
    // BENCH_DOC_BASELINE_SERVICE_MAIN: another build of the service stands in for the baseline (e.g. one without count upkeep, for the write cost).
    const standIn = process.env.BENCH_DOC_BASELINE_SERVICE_MAIN;
    const baselinePort = await freePort();
    const baseline = standIn
      ? await startService('baseline', standIn)
      : await startServer({
          name: 'baseline',
          script: join(ctx.root, 'dist/bench/documents/doc-baseline-server.js'),
          cwd: ctx.root,
          port: baselinePort,
          env: {
            NODE_ENV: 'production',
            BASELINE_DB: ctx.kind,
            JWT_SECRET: ctx.config.jwtSecret,
            DATABASE_URL: databaseUrl,
            // The same store: the baseline streams the very files the service stored.
            STORAGE_DIR: doc.storageDir,
            PORT: String(baselinePort),
            HOST: '127.0.0.1',
          },
          probePath: ctx.probe,
          nodeFlags: ctx.nodeFlags,
        });
    log(
      `[${ctx.kind} documents] service pid ${service.pid} (idle RSS ${fmt(rssMb(service.pid), 0)} MB), baseline pid ${baseline.pid} (${fmt(rssMb(baseline.pid), 0)} MB)`,
    );
    return { service, serviceB, baseline };
  } catch (error) {
    await service.stop();
    await serviceB?.stop();
    throw error;
  }
}

async function stopPair(pair: Pair): Promise<void> {
  await pair.service.stop();
  await pair.serviceB?.stop();
  await pair.baseline.stop();
}

/** The read scenarios: typical users rotate; each reads its own projects' documents. */
function readScenarios(ctx: DocumentPhaseContext, plan: DocPlan, tokens: string[]): Scenario[] {
  const { config, doc } = ctx;
  const users = Array.from({ length: doc.users }, (_, i) => i + 1);
  const job = (items: [string, number][]) => () => ({
    method: 'GET' as const,
    connections: config.connections,
    tokens,
    items,
  });
  const perProject = Math.floor(doc.rows / doc.projects);
  return [
    {
      name: 'doc-list-typical',
      title: `Document list page 1, typical users (${doc.users} users x ${doc.membershipsPerUser} projects, -updatedAt)`,
      job: job(users.map((k) => ['/api/documents', k])),
    },
    {
      name: 'doc-list-title',
      title: 'Document list page 1 by title (typical users, sort=title)',
      job: job(users.map((k) => ['/api/documents?sort=title', k])),
    },
    {
      name: 'doc-list-many',
      title: `Document list page 1, a member of all ${doc.projects} projects (-updatedAt)`,
      job: job([['/api/documents', 0]]),
    },
    {
      name: 'doc-list-reader',
      title: 'Document list page 1, a reader of everything (role with documents:read)',
      job: job([['/api/documents', docReader(plan)]]),
    },
    {
      name: 'doc-list-project',
      title: 'Document list page 1 by projectId (typical users, each of their projects)',
      job: job(
        users.flatMap((k) =>
          memberProjects(plan, k).map((p): [string, number] => [`/api/documents?projectId=${docProjectId(p)}`, k]),
        ),
      ),
    },
    ...fieldScenarios(plan, users, job),
    {
      name: 'doc-search',
      title: `Search q=${RARE_WORD} (a word in 0.5% of the documents), typical users, relevance, ${doc.searchConnections} connections`,
      job: () => ({
        ...job(users.map((k) => [`/api/documents?q=${RARE_WORD}`, k]))(),
        connections: doc.searchConnections,
      }),
    },
    {
      // The search's latency on its own (the p50 target), apart from the throughput run's queueing.
      name: 'doc-search-latency',
      title: `Search q=${RARE_WORD}, one connection (latency of one search at a time)`,
      job: () => ({ ...job(users.map((k) => [`/api/documents?q=${RARE_WORD}`, k]))(), connections: 1 }),
    },
    {
      name: 'doc-get',
      title: 'GET /api/documents/{id} (typical users, documents of their projects)',
      job: job(
        users.flatMap((k) =>
          memberProjects(plan, k).flatMap((p) =>
            [0, 1].map((i): [string, number] => [
              `/api/documents/${docDocumentId(p * perProject + ((k * 37 + i * 101) % perProject))}`,
              k,
            ]),
          ),
        ),
      ),
    },
  ];
}

/**
 * Custom field filters (issue 29) on the type whose documents hold `region` and `amount`: a select
 * value (a quarter of them) and a 10% amount range, as typical users and as the reader of everything.
 * One connection: the target is a latency (p50), not queueing. Service only: the baseline has no custom fields.
 */
function fieldScenarios(
  plan: DocPlan,
  users: number[],
  job: (items: [string, number][]) => Scenario['job'],
): Scenario[] {
  const type = `/api/documents?documentTypeId=${docTypeId(FIELD_TYPE)}`;
  const band = AMOUNT_MAX / 10;
  const select = (k: number) => `${type}&field.region=${REGIONS[k % REGIONS.length]}`;
  const range = (k: number) => {
    const from = (k * 7919) % (AMOUNT_MAX - band);
    return `${type}&field.amount[gte]=${from}&field.amount[lte]=${from + band}`;
  };
  const reader = docReader(plan);
  const one = (items: [string, number][]) => () => ({ ...job(items)(), connections: 1 });
  return [
    {
      name: 'doc-list-field-select',
      title: 'Document list page 1 by a select field (documentTypeId + field.region=, typical users)',
      serviceOnly: true,
      job: one(users.map((k) => [select(k), k])),
    },
    {
      name: 'doc-list-field-range',
      title: 'Document list page 1 by a number range (field.amount[gte]= & [lte]=, 10%, typical users)',
      serviceOnly: true,
      job: one(users.map((k) => [range(k), k])),
    },
    {
      name: 'doc-list-field-select-reader',
      title: 'Document list page 1 by a select field, a reader of everything (global documents:read)',
      serviceOnly: true,
      job: one(REGIONS.map((_, k) => [select(k), reader])),
    },
    {
      name: 'doc-list-field-range-reader',
      title: 'Document list page 1 by a number range (10%), a reader of everything',
      serviceOnly: true,
      job: one(users.map((k) => [range(k), reader])),
    },
  ];
}

/** Both servers answer the scenario's first request with the same JSON (and status 200). */
export async function sameAnswer(scenario: Scenario, pair: Pair): Promise<string> {
  const spec = scenario.job();
  const [path, tokenIndex] = spec.items[0];
  const answers = [];
  for (const server of [pair.service, pair.baseline]) {
    answers.push(
      await httpJson(server.url + path, { headers: { authorization: `Bearer ${spec.tokens[tokenIndex]}` } }),
    );
  }
  const [a, b] = answers;
  if (a.status !== 200 || b.status !== 200) {
    return `status service ${a.status} / baseline ${b.status}: ${JSON.stringify(a.body).slice(0, 300)} | ${JSON.stringify(b.body).slice(0, 300)}`;
  }
  const count = (body: unknown) => (body as { pagination?: { total?: number } }).pagination?.total;
  const total = count(a.body) === undefined ? '' : ` (total ${count(a.body)})`;
  return JSON.stringify(a.body) === JSON.stringify(b.body)
    ? `identical JSON${total}`
    : `DIFFERENT JSON: ${JSON.stringify(a.body).slice(0, 400)} vs ${JSON.stringify(b.body).slice(0, 400)}`;
}

/** A service-only scenario's first answer: its status and total (the baseline cannot answer it). */
async function serviceAnswer(scenario: Scenario, pair: Pair): Promise<string> {
  const spec = scenario.job();
  const [path, tokenIndex] = spec.items[0];
  const answer = await httpJson(pair.service.url + path, {
    headers: { authorization: `Bearer ${spec.tokens[tokenIndex]}` },
  });
  const body = answer.body as { pagination?: { total?: number }; documents?: unknown[] };
  if (answer.status !== 200) return `status ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`;
  return `service only: ${body.documents?.length ?? 0} documents on page 1, total ${body.pagination?.total}`;
}

/** One transfer load (upload or download) against one server, with its CPU and peak RSS. */
async function measureTransfer(
  server: ServerHandle,
  workerPath: string,
  job: TransferJob,
): Promise<TransferMeasurement> {
  const child = fork(workerPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  track(child);
  try {
    const messages = new Map<string, (message: { result?: TransferResult; message?: string }) => void>();
    child.on('message', (message: { type: string; result?: TransferResult; message?: string }) =>
      messages.get(message.type)?.(message),
    );
    const next = (type: string) =>
      new Promise<{ result?: TransferResult; message?: string }>((resolve, reject) => {
        messages.set(type, resolve);
        messages.set('error', (message) => reject(new Error(`transfer worker ${job.tag}: ${message.message}`)));
        child.once('exit', (code) => reject(new Error(`transfer worker ${job.tag} exited with ${code}`)));
      });
    const warm = next('warm');
    child.send({ type: 'job', job });
    await warm;
    await server.probe('reset');
    resetPeakRss(server.pid);
    const sampler = rssSampler(server.pid, 50);
    const cpu0 = cpuSeconds(server.pid);
    const done = next('result');
    child.send({ type: 'go' });
    const { result } = await done;
    const cpu1 = cpuSeconds(server.pid);
    const hwm = procStatusKb(server.pid, 'VmHWM') / 1024;
    const peakRssMb = Math.max(sampler.stop(), Number.isFinite(hwm) ? hwm : 0);
    return {
      server: server.name,
      result: result!,
      cpuPerRequestUs: result!.ok ? ((cpu1 - cpu0) / result!.ok) * 1e6 : NaN,
      peakRssMb,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

function describeTransfer(m: TransferMeasurement): string {
  const r = m.result;
  const bad = r.requests - r.ok;
  return (
    `${m.server.padEnd(9)} ${fmt(r.rps)} req/s  ${fmt(r.mibPerSecond)} MiB/s  p50 ${fmt(r.latency.p50, 2)} ms  ` +
    `p99 ${fmt(r.latency.p99, 2)} ms  CPU ${fmt(m.cpuPerRequestUs, 0)} µs/req  peak RSS ${fmt(m.peakRssMb, 0)} MB` +
    (bad ? `  NON-2XX/ERRORS ${bad} ${JSON.stringify(r.statuses)} ${r.firstError ?? ''}` : '')
  );
}

async function runTransfer(
  name: string,
  title: string,
  pair: Pair,
  ctx: DocumentPhaseContext,
  job: (role: 'service' | 'baseline') => Omit<TransferJob, 'url' | 'duration' | 'warmup' | 'tag'>,
): Promise<TransferScenarioResult> {
  log(`[${ctx.kind}] ${name}: ${title}`);
  const worker = join(ctx.root, 'dist/bench/documents/transfer-worker.js');
  const runs: TransferScenarioResult['runs'] = { service: [], baseline: [] };
  for (let rep = 1; rep <= ctx.config.repeats; rep++) {
    for (const role of ['service', 'baseline'] as const) {
      const server = pair[role];
      const m = await measureTransfer(server, worker, {
        ...job(role),
        url: server.url,
        duration: ctx.config.duration,
        warmup: ctx.config.warmup,
        tag: `${ctx.kind}-${name}-${role}-${rep}`,
      });
      runs[role].push(m);
      log(`  #${rep} ${describeTransfer(m)}`);
    }
  }
  const summary = (list: TransferMeasurement[]) => ({
    rps: median(list.map((m) => m.result.rps)),
    mibPerSecond: median(list.map((m) => m.result.mibPerSecond)),
    p50: median(list.map((m) => m.result.latency.p50)),
    p99: median(list.map((m) => m.result.latency.p99)),
    peakRssMb: Math.max(...list.map((m) => m.peakRssMb)),
  });
  const ratio = (fn: (m: TransferMeasurement) => number) =>
    median(runs.service.map((m, i) => fn(m) / fn(runs.baseline[i])));
  return {
    name,
    title,
    runs,
    service: summary(runs.service),
    baseline: summary(runs.baseline),
    rpsRatio: ratio((m) => m.result.rps),
    throughputRatio: ratio((m) => m.result.mibPerSecond),
  };
}

/** One upload of `bytes` through the service (or the baseline); answers the created document. */
async function uploadOnce(
  server: ServerHandle,
  ctx: DocumentPhaseContext,
  token: string,
  fields: Record<string, string>,
  bytes: number,
  tag: string,
): Promise<{ measurement: TransferMeasurement; document?: { id: string; sha256: string } }> {
  const worker = join(ctx.root, 'dist/bench/documents/transfer-worker.js');
  const measurement = await measureTransfer(server, worker, {
    kind: 'upload',
    url: server.url,
    path: '/api/documents',
    token,
    connections: 1,
    duration: 0,
    warmup: 0,
    once: true,
    fileBytes: bytes,
    fields: { ...fields, title: tag },
    tag,
  });
  // The document just created: the newest of this title (the worker drops response bodies).
  const listed = await httpJson(`${server.url}/api/documents?projectId=${fields.projectId}&sort=-createdAt&limit=5`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const documents = (listed.body as { documents?: { id: string; title: string; sha256: string }[] }).documents ?? [];
  return { measurement, document: documents.find((d) => d.title === tag) };
}

/** BENCH_REUSE=1: documents already loaded (a BENCH_KEEP=1 run of the same size) are used as they are. */
async function loadedDocuments(kind: 'mysql' | 'sqlite', config: BenchConfig): Promise<number> {
  if (kind === 'sqlite') {
    if (!existsSync(config.sqlitePath)) return 0;
    const db = openSqlite(config.sqlitePath, { readonly: true });
    try {
      return Number((db.prepare('SELECT COUNT(*) AS n FROM documents').get() as { n: number }).n);
    } catch {
      return 0;
    } finally {
      db.close();
    }
  }
  const admin = await adminConnection(config);
  try {
    const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM \`${config.mysqlDatabase}\`.documents`);
    return Number((rows as { n: number | string }[])[0].n);
  } catch {
    return 0;
  } finally {
    await admin.end();
  }
}

async function bufferPoolMb(config: BenchConfig): Promise<number> {
  const admin = await adminConnection(config);
  try {
    const [rows] = await admin.query('SELECT @@innodb_buffer_pool_size AS size');
    return Number((rows as { size: number | string }[])[0].size) / 1048576;
  } finally {
    await admin.end();
  }
}

/**
 * Gives MariaDB a buffer pool of `mb` MiB for the phase (never shrinks it; 0: leaves it) and answers
 * how to put the old size back. A resize runs in the background; the load that follows fills it.
 */
export async function setBufferPool(config: BenchConfig, mb: number): Promise<(() => Promise<void>) | undefined> {
  const before = await bufferPoolMb(config);
  if (mb <= before) return undefined;
  const set = async (size: number) => {
    const admin = await adminConnection(config);
    try {
      await admin.query('SET GLOBAL innodb_buffer_pool_size = ?', [Math.round(size * 1048576)]);
    } finally {
      await admin.end();
    }
  };
  await set(mb);
  log(`[mysql documents] innodb_buffer_pool_size ${fmt(before, 0)} -> ${fmt(mb, 0)} MiB for this phase`);
  return async () => {
    await set(before).catch((error: unknown) => log(`  could not restore innodb_buffer_pool_size: ${String(error)}`));
    log(`[mysql documents] innodb_buffer_pool_size back to ${fmt(before, 0)} MiB`);
  };
}

export async function runDocumentPhase(ctx: DocumentPhaseContext): Promise<DocumentPhaseResults> {
  const { kind, doc } = ctx;
  const config = {
    ...docDatabaseConfig(ctx.config, doc),
    duration: doc.duration,
    warmup: doc.warmup,
    repeats: doc.repeats,
  };
  const plan = makeDocPlan(doc, ctx.passwordHash);
  const tokens = signDocTokens(config, doc.users);
  const results: DocumentPhaseResults = {
    database: kind,
    rows: doc.rows,
    projects: doc.projects,
    uploadBytes: doc.uploadBytes,
    downloadBytes: doc.downloadBytes,
    load: {},
    loadSeconds: 0,
    growth: [],
    scenarios: [],
    transfers: [],
    checks: {},
  };
  const databaseUrl = kind === 'mysql' ? mysqlUrl(config) : `sqlite:${config.sqlitePath}`;
  const phaseCtx = { ...ctx, config };
  rmSync(doc.storageDir, { recursive: true, force: true });
  const restorePool = kind === 'mysql' ? await setBufferPool(config, doc.bufferPoolMb) : undefined;
  try {
    if (kind === 'mysql') results.bufferPoolMb = await bufferPoolMb(config);
    const stage1 = documentsInStage(plan, 1);
    // The bench's own uploads add rows to kept data: at least the planned size counts as reusable.
    const reuse = config.reuse && (await loadedDocuments(kind, config)) >= doc.rows;
    if (reuse) log(`[${kind} documents] reusing the loaded documents (BENCH_REUSE=1)`);
    else
      log(
        `[${kind} documents] loading ${doc.users + 1} users, ${doc.projects} projects, ${stage1} + ${doc.rows - stage1} documents (search triggers on)`,
      );
    let t0 = performance.now();
    if (reuse) {
      // nothing to load
    } else if (kind === 'mysql') {
      await loadMysqlDocBase(config, plan);
      await loadMysqlDocuments(config, plan, 1, results.load);
    } else {
      await createSqliteDocSchema(config);
      loadSqliteDocs(config, plan, 'base', results.load);
      loadSqliteDocs(config, plan, 1, results.load);
    }
    results.loadSeconds += (performance.now() - t0) / 1000;
    const scenarios = readScenarios(phaseCtx, plan, tokens);
    const growthNames = ['doc-list-typical', 'doc-list-project'].filter((name) => wanted(config, name));
    const stage1Results = new Map<string, ScenarioResult>();
    if (!reuse && ctx.config.growth && growthNames.length && stage1 < doc.rows) {
      const pair = await startDocPair(phaseCtx, databaseUrl);
      try {
        for (const name of growthNames) {
          log(`[${kind}] growth, stage 1: ${stage1} documents in the table`);
          stage1Results.set(
            name,
            await runScenario(
              scenarios.find((s) => s.name === name)!,
              kind,
              pair,
              config,
              ctx.loadWorker,
              ctx.dbPid,
            ),
          );
        }
      } finally {
        await stopPair(pair);
      }
    }
    t0 = performance.now();
    if (reuse) {
      // loaded by an earlier run
    } else if (kind === 'mysql') await loadMysqlDocuments(config, plan, 2, results.load);
    else loadSqliteDocs(config, plan, 2, results.load);
    results.loadSeconds += (performance.now() - t0) / 1000;
    log(`[${kind} documents] data loaded in ${results.loadSeconds.toFixed(0)} s`);
    if (kind === 'mysql') results.sizes = await mysqlTableSizes(config);
    const listScenarios = scenarios.filter((s) => s.name.startsWith('doc-list-') && wanted(config, s.name));
    if (kind === 'mysql' && listScenarios.length) {
      log(`[${kind} documents] the list's statements per request, counters and plans (query proxy)`);
      let proxied: Pair | undefined;
      results.listPlans = await measureListPlans(
        config,
        (port) => mysqlUrl(config, port),
        async (url) => {
          proxied = await startDocPair(phaseCtx, url);
          return [proxied.service, proxied.baseline];
        },
        async () => {
          if (proxied) await stopPair(proxied);
        },
        listScenarios,
      );
    }

    const pair = await startDocPair(phaseCtx, databaseUrl);
    try {
      for (const scenario of scenarios.filter((s) => wanted(config, s.name))) {
        const check = scenario.serviceOnly ? await serviceAnswer(scenario, pair) : await sameAnswer(scenario, pair);
        results.checks[scenario.name] = check;
        log(`[${kind}] ${scenario.name}: response check: ${check}`);
        const result = await runScenario(scenario, kind, pair, config, ctx.loadWorker, ctx.dbPid);
        result.shapeCheck = check;
        results.scenarios.push(result);
        const before = stage1Results.get(scenario.name);
        if (before)
          results.growth.push({
            name: scenario.name,
            stage1Rows: stage1,
            fullRows: doc.rows,
            stage1: before,
            full: result,
          });
      }
      await transferScenarios(phaseCtx, plan, pair, tokens, results);
    } finally {
      await stopPair(pair);
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

async function transferScenarios(
  ctx: DocumentPhaseContext,
  plan: DocPlan,
  pair: Pair,
  tokens: string[],
  results: DocumentPhaseResults,
): Promise<void> {
  const { doc, kind } = ctx;
  // Typical user 1 uploads into the first of its projects (a contributor there).
  const uploader = 1;
  const fields = { projectId: docProjectId(memberProjects(plan, uploader)[0]), documentTypeId: docTypeId(0) };
  if (wanted(ctx.config, 'doc-upload')) {
    results.transfers.push(
      await runTransfer(
        'doc-upload',
        `${doc.uploadConnections} concurrent ${doc.uploadBytes / 1024} KiB uploads (multipart, stored, hashed, row inserted)`,
        pair,
        ctx,
        () => ({
          kind: 'upload',
          path: '/api/documents',
          token: tokens[uploader],
          connections: doc.uploadConnections,
          fileBytes: doc.uploadBytes,
          fields,
        }),
      ),
    );
  }
  if (doc.bigUploadBytes > 0 && (wanted(ctx.config, 'doc-upload-big') || wanted(ctx.config, 'doc-range'))) {
    log(`[${kind}] doc-upload-big: one ${doc.bigUploadBytes / 1048576} MiB upload, RSS sampled every 50 ms`);
    const big: Partial<Record<'service' | 'baseline', BigUploadResult>> = {};
    let rangeDocument: { id: string; sha256: string } | undefined;
    for (const role of ['service', 'baseline'] as const) {
      const server = pair[role];
      // Settle first, so the growth is the upload's, not leftover garbage of earlier scenarios.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = rssMb(server.pid);
      const { measurement, document } = await uploadOnce(
        server,
        ctx,
        tokens[uploader],
        fields,
        doc.bigUploadBytes,
        `big-${kind}-${role}`,
      );
      if (role === 'service') rangeDocument = document;
      const status = Number(Object.keys(measurement.result.statuses)[0] ?? 0);
      big[role] = {
        bytes: doc.bigUploadBytes,
        status,
        seconds: measurement.result.seconds,
        rssBeforeMb: before,
        peakRssMb: measurement.peakRssMb,
        growthMb: measurement.peakRssMb - before,
      };
      log(
        `  ${role.padEnd(9)} status ${status}, ${fmt(measurement.result.seconds, 1)} s (${fmt(measurement.result.mibPerSecond)} MiB/s), RSS ${fmt(before, 0)} -> peak ${fmt(measurement.peakRssMb, 0)} MB (growth ${fmt(big[role].growthMb, 0)} MB)`,
      );
    }
    results.bigUpload = { service: big.service!, baseline: big.baseline! };
    if (rangeDocument && wanted(ctx.config, 'doc-range')) {
      const documentId = rangeDocument.id;
      results.transfers.push(
        await runTransfer(
          'doc-range',
          `Range: the last 1 KiB of the ${doc.bigUploadBytes / 1048576} MiB file (${doc.rangeConnections} connection(s))`,
          pair,
          ctx,
          () => ({
            kind: 'download',
            path: `/api/documents/${documentId}/content`,
            token: tokens[uploader],
            connections: doc.rangeConnections,
            headers: { range: 'bytes=-1024' },
          }),
        ),
      );
    }
  }
  if (wanted(ctx.config, 'doc-download')) {
    const { document } = await uploadOnce(
      pair.service,
      ctx,
      tokens[uploader],
      fields,
      doc.downloadBytes,
      `download-${kind}`,
    );
    if (!document) {
      results.checks['doc-download'] = 'the download file could not be uploaded through the service';
      return;
    }
    results.transfers.push(
      await runTransfer(
        'doc-download',
        `Download of a ${doc.downloadBytes / 1048576} MiB file (${doc.downloadConnections} connection(s), whole file)`,
        pair,
        ctx,
        () => ({
          kind: 'download',
          path: `/api/documents/${document.id}/content`,
          token: tokens[uploader],
          connections: doc.downloadConnections,
        }),
      ),
    );
  }
}

/** Removes the documents phases' databases and files (an interrupted run leaves them otherwise). */
export async function dropDocumentData(config: BenchConfig, doc: DocBenchConfig): Promise<void> {
  const own = docDatabaseConfig(config, doc);
  if (config.mysql) await dropMysql(own);
  if (config.sqlite) removeSqlite(own.sqlitePath);
  rmSync(doc.storageDir, { recursive: true, force: true });
}
