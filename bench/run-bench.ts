// npm run bench: prepares data on MariaDB and SQLite, starts the built service and the baseline,
// drives load from separate processes and writes bench/results/latest.{json,md}. See bench/README.md.
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeConfig, loadBenchConfig } from './config.js';
import { documentId, documentOwner, documentUpdatable, makePlan, userId, username, type DataPlan } from './datagen.js';
import { describeContentConfig, loadContentBenchConfig } from './content/content-config.js';
import { dropContentData, runContentPhase } from './content/content-phase.js';
import { writeContentResults, type ContentResults } from './content/content-report.js';
import { describeDocConfig, loadDocBenchConfig } from './documents/doc-config.js';
import { dropDocumentData, runDocumentPhase, type DocumentPhaseContext } from './documents/doc-phase.js';
import { explainMysql, type ExplainEntry } from './explain.js';
import { runGovernance } from './governance/run-governance.js';
import { inboxOnly, inboxSelected, runInboxMysql } from './inbox/inbox-phase.js';
import { attentionConfig, dropAttentionData } from './attention/attention-data.js';
import { runAttention, type AttentionContext } from './attention/attention-phase.js';
import { attentionTargets, writeAttentionResults, type AttentionDbResults } from './attention/attention-report.js';
import { attentionOnly, attentionSelected, attentionSettings } from './attention/attention-settings.js';
import {
  adminConnection,
  createMysqlSchema,
  dropMysql,
  loadMysqlBase,
  loadMysqlNotifications,
  mysqlTableSizes,
  mysqlUrl,
  verifyMysqlCounts,
  type LoadTimes,
} from './load-mysql.js';
import { createSqliteSchema, loadSqlite, removeSqlite } from './load-sqlite.js';
import { LoadProcess, measure } from './loadrun.js';
import { hashBenchPassword, runMicro } from './micro.js';
import { QueryProxy } from './query-proxy.js';
import {
  evaluateTargets,
  markdown,
  textTable,
  type BenchResults,
  type DatabaseResults,
  type FloodResult,
  type QueryCount,
  type ServerStart,
} from './report.js';
import {
  UPDATE_BODY,
  buildScenarios,
  describeRun,
  runScenario,
  signTokens,
  type Scenario,
  type ServerSet,
} from './scenarios.js';
import { killAllChildren, productionNodeFlags, rssMb, startServer, type ServerHandle } from './servers.js';
import { openSqlite } from './sqlite.js';
import { fmt, freePort, httpJson, log, pidOf, sleep } from './util.js';

const config = loadBenchConfig();
const documents = loadDocBenchConfig(config);
const attention = attentionSettings();
const content = loadContentBenchConfig(config, documents);
// BENCH_CONTENT=only (or only content-* scenarios named): the content phases alone (npm run bench:content).
const contentOnly = content.mode === 'only';
const benchStarted = performance.now();
const here = dirname(fileURLToPath(import.meta.url)); // <root>/dist/bench
const distRoot = resolve(here, '..');
const projectRoot = resolve(distRoot, '..');

interface Paths {
  root: string;
  serviceMain: string;
  /** BENCH_SERVICE_B_MAIN: a second build of the service, measured in the same rounds (A/B). */
  serviceBMain?: string;
  baseline: string;
  worker: string;
  probe: string;
}

/**
 * Runs everything from a private copy of dist/ (with node_modules linked), so a concurrent
 * `npm run build` (which deletes dist/) cannot pull the code out from under a long run.
 */
function snapshot(): Paths {
  const root = `/tmp/dms-bench-run-${process.pid}`;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  cpSync(distRoot, join(root, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  cpSync(join(projectRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  return {
    root,
    // BENCH_SERVICE_MAIN: measure another build of the service (e.g. a patched copy) against the same baseline.
    serviceMain: process.env.BENCH_SERVICE_MAIN
      ? resolve(process.env.BENCH_SERVICE_MAIN)
      : join(root, 'dist/src/main.js'),
    serviceBMain: process.env.BENCH_SERVICE_B_MAIN ? resolve(process.env.BENCH_SERVICE_B_MAIN) : undefined,
    baseline: join(root, 'dist/bench/baseline-server.js'),
    worker: join(root, 'dist/bench/load-worker.js'),
    probe: join(root, 'dist/bench/probe.js'),
  };
}

function packageVersion(name: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '?';
  }
}

function gitRevision(): string {
  try {
    const options = {
      cwd: projectRoot,
      encoding: 'utf8' as const,
      stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'],
    };
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], options).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], options).trim();
    return dirty ? `${head} (src modified)` : head;
  } catch {
    return '?';
  }
}

async function machineInfo(): Promise<Record<string, unknown>> {
  let mariadb = '?';
  if (config.mysql) {
    try {
      const connection = await adminConnection(config);
      const [[row]] = (await connection.query('SELECT VERSION() AS v')) as unknown as [[{ v: string }]];
      mariadb = row.v;
      await connection.end();
    } catch (error) {
      mariadb = `unreachable (${(error as Error).message})`;
    }
  }
  let sqlite = '?';
  try {
    const db = openSqlite(':memory:');
    sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    db.close();
  } catch {
    // ignore
  }
  const packages = Object.fromEntries(
    [
      '@nestjs/core',
      '@nestjs/platform-fastify',
      'fastify',
      'typeorm',
      'mysql2',
      'better-sqlite3',
      'jsonwebtoken',
      'passport-jwt',
      '@node-rs/argon2',
      'class-validator',
      'autocannon',
    ].map((name) => [name, packageVersion(name)]),
  );
  return {
    cpuModel: cpus()[0]?.model ?? '?',
    cores: config.cores,
    memoryGb: Math.round(totalmem() / 1e9),
    node: process.version,
    mariadb,
    sqlite,
    packages,
    git: gitRevision(),
    serviceNodeFlags: productionNodeFlags(projectRoot).join(' ') || '(none)',
    loadAtStart: loadavg()
      .map((v) => v.toFixed(2))
      .join(' '),
    loadAtEnd: '',
  };
}

function serviceEnv(databaseUrl: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    JWT_SECRET: config.jwtSecret,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    // All load comes from one loopback address and rotates over a few thousand usernames: raise the
    // login throttle far above what the bench can reach (the throttler still runs on every login).
    LOGIN_RATE_LIMIT_PER_IP: '1000000',
    LOGIN_RATE_LIMIT_PER_USERNAME: '1000000',
    ...extraServiceEnv(),
  };
}

/** BENCH_SERVICE_ENV="A=1,B=2": extra environment for the service only (e.g. PASSWORD_HASH_CONCURRENCY=1). */
function extraServiceEnv(): Record<string, string> {
  const raw = process.env.BENCH_SERVICE_ENV ?? '';
  return Object.fromEntries(
    raw
      .split(',')
      .map((pair) => pair.trim())
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/** What the documents phase (bench/documents) needs from this run. */
function documentContext(kind: 'mysql' | 'sqlite', paths: Paths, passwordHash: string): DocumentPhaseContext {
  return {
    kind,
    config,
    doc: documents,
    root: paths.root,
    serviceMain: paths.serviceMain,
    serviceBMain: paths.serviceBMain,
    probe: paths.probe,
    loadWorker: paths.worker,
    nodeFlags: productionNodeFlags(projectRoot),
    passwordHash,
    serviceEnv,
    dbPid: kind === 'mysql' ? (pidOf('mariadbd') ?? pidOf('mysqld')) : undefined,
  };
}

function baselineEnv(kind: 'mysql' | 'sqlite', databaseUrl: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    BASELINE_DB: kind,
    JWT_SECRET: config.jwtSecret,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
}

type Role = 'service' | 'serviceB' | 'baseline';
type Servers = ServerSet & { starts: Partial<Record<Role, ServerStart>> };

const serverList = (servers: ServerSet): ServerHandle[] =>
  [servers.service, servers.serviceB, servers.baseline].filter((server) => server !== undefined);
const stopAll = async (servers: ServerSet) => {
  for (const server of serverList(servers)) await server.stop();
};

/** Starts the service, serviceB (when BENCH_SERVICE_B_MAIN is set and `withB`) and the baseline. */
async function startPair(
  paths: Paths,
  kind: 'mysql' | 'sqlite',
  databaseUrl: string,
  tokens: string[],
  withB = true,
): Promise<Servers> {
  const started: ServerHandle[] = [];
  const start = async (name: Role, script: string, env: (port: number) => Record<string, string>) => {
    const port = await freePort();
    const server = await startServer({
      name,
      script,
      cwd: paths.root,
      port,
      env: env(port),
      probePath: paths.probe,
      // The same runtime settings for all: the ratios then measure the code, not V8 tuning.
      nodeFlags: productionNodeFlags(projectRoot),
    });
    started.push(server);
    return server;
  };
  try {
    const service = await start('service', paths.serviceMain, (port) => serviceEnv(databaseUrl, port));
    const serviceB =
      withB && paths.serviceBMain
        ? await start('serviceB', paths.serviceBMain, (port) => serviceEnv(databaseUrl, port))
        : undefined;
    const baseline = await start('baseline', paths.baseline, (port) => baselineEnv(kind, databaseUrl, port));
    const starts: Servers['starts'] = {};
    for (const server of started) {
      const t0 = performance.now();
      const response = await httpJson(`${server.url}/api/notifications`, {
        headers: { authorization: `Bearer ${tokens[1]}` },
      });
      if (response.status !== 200)
        throw new Error(
          `${server.name}: first list request answered ${response.status} ${JSON.stringify(response.body)}`,
        );
      const firstListMs = server.startupMs + (performance.now() - t0);
      await sleep(1000);
      const { heapUsedMb } = await server.probe('read');
      const idle = { startupMs: server.startupMs, firstListMs, idleRssMb: rssMb(server.pid), idleHeapMb: heapUsedMb };
      starts[server.name as Role] = idle;
      log(
        `[${kind}] ${server.name} (pid ${server.pid}): answered after ${fmt(server.startupMs, 0)} ms, first list at ` +
          `${fmt(firstListMs, 0)} ms, idle RSS ${fmt(idle.idleRssMb, 0)} MB (V8 heap used ${fmt(heapUsedMb, 0)} MB)`,
      );
    }
    return { service, serviceB, baseline, starts };
  } catch (error) {
    for (const server of started) await server.stop();
    throw error;
  }
}

/** The service (and serviceB) must answer as the baseline: the same JSON (list), the same shape (update, login). */
async function shapeCheck(scenario: Scenario, servers: ServerSet): Promise<string> {
  if (scenario.serviceOnly) return 'service only';
  const spec = scenario.job();
  const targets = serverList(servers);
  const answers: { status: number; body: unknown }[] = [];
  for (const [index, server] of targets.entries()) {
    // Updates go to different documents; list and login send the very same request.
    const [path, tokenIndex, body] = spec.items[scenario.name === 'update' ? index : 0];
    const payload = body ?? spec.bodyTemplate?.replace('{n}', `shape-check-${index}`);
    const headers: Record<string, string> = {};
    if (tokenIndex >= 0) headers.authorization = `Bearer ${spec.tokens[tokenIndex]}`;
    if (payload) headers['content-type'] = 'application/json';
    answers.push(await httpJson(server.url + path, { method: spec.method, headers, body: payload }));
  }
  scenario.consumed?.(targets.length);
  const base = answers.at(-1)!;
  // Keys (in order) and value types; for login also the user object itself.
  const shape = (value: unknown): string =>
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x && typeof x === 'object' ? x : typeof x]))
        : v,
    );
  const user = (value: unknown) => JSON.stringify((value as { user?: unknown }).user);
  const compare = (a: { status: number; body: unknown }) => {
    if (a.status !== 200 || base.status !== 200) {
      return `status ${a.status} / baseline ${base.status}: ${JSON.stringify(a.body).slice(0, 300)} | ${JSON.stringify(base.body).slice(0, 300)}`;
    }
    if (scenario.name.startsWith('list')) {
      return JSON.stringify(a.body) === JSON.stringify(base.body)
        ? 'identical JSON'
        : `DIFFERENT JSON: ${JSON.stringify(a.body).slice(0, 400)} vs ${JSON.stringify(base.body).slice(0, 400)}`;
    }
    if (shape(a.body) !== shape(base.body))
      return `DIFFERENT SHAPE: ${shape(a.body).slice(0, 400)} vs ${shape(base.body).slice(0, 400)}`;
    if (scenario.name === 'login' && user(a.body) !== user(base.body))
      return `DIFFERENT USER: ${user(a.body)} vs ${user(base.body)}`;
    return scenario.name === 'login' ? 'same shape, identical user' : 'same shape';
  };
  const service = compare(answers[0]);
  return servers.serviceB ? `${service}; serviceB: ${compare(answers[1])}` : service;
}

async function countQueries(
  paths: Paths,
  plan: DataPlan,
  tokens: string[],
): Promise<{ counts: QueryCount[]; statements: { shape: string; sql: string }[] }> {
  const proxy = new QueryProxy();
  const proxyPort = await proxy.start(config.mysqlHost, config.mysqlPort);
  const pair = await startPair(paths, 'mysql', mysqlUrl(config, proxyPort), tokens, false);
  let documentCursor = config.documents - 1;
  type Req = { path: string; method?: string; token?: number; body?: string };
  const kinds: { kind: string; request: (i: number) => Req; labels?: string[] }[] = [
    {
      kind: 'list (typical user)',
      request: (i) => ({ path: '/api/notifications', token: 1 + (i % config.probeUsers) }),
    },
    {
      kind: 'list limit=100 (typical user)',
      request: (i) => ({ path: '/api/notifications?limit=100', token: 1 + (i % config.probeUsers) }),
    },
    { kind: 'list (heavy user)', request: () => ({ path: '/api/notifications', token: 0 }) },
    { kind: 'list status (heavy user)', request: () => ({ path: '/api/notifications?status=pending', token: 0 }) },
    { kind: 'list type (heavy user)', request: () => ({ path: '/api/notifications?type=push', token: 0 }) },
    { kind: 'list unreadOnly (heavy user)', request: () => ({ path: '/api/notifications?unreadOnly=true', token: 0 }) },
    {
      kind: 'list status+type+unreadOnly (heavy user)',
      request: () => ({ path: '/api/notifications?status=pending&type=push&unreadOnly=true', token: 0 }),
    },
    {
      kind: `list page ${config.deepPage} (heavy user)`,
      request: () => ({ path: `/api/notifications?page=${config.deepPage}&limit=20`, token: 0 }),
    },
    {
      kind: 'update',
      request: () => {
        let j = documentCursor--;
        while (!documentUpdatable(j)) j = documentCursor--;
        return {
          path: `/api/documents/${documentId(j)}`,
          method: 'PUT',
          token: documentOwner(plan, j),
          body: UPDATE_BODY.replace('{n}', `count-${j}`),
        };
      },
    },
    {
      kind: 'login',
      request: (i) => ({
        path: '/api/auth/login',
        method: 'POST',
        body: JSON.stringify({ username: username(1 + i), password: config.password }),
      }),
    },
  ];
  const counts: QueryCount[] = [];
  const statements: { shape: string; sql: string }[] = [];
  try {
    const first = await httpJson(`${pair.service.url}/api/notifications?limit=20`, {
      headers: { authorization: `Bearer ${tokens[0]}` },
    });
    const next = (first.body as { pagination?: { nextCursor?: unknown } }).pagination?.nextCursor;
    if (typeof next === 'string') {
      kinds.splice(8, 0, {
        kind: 'list cursor (heavy user)',
        request: () => ({ path: `/api/notifications?limit=20&cursor=${encodeURIComponent(next)}`, token: 0 }),
      });
    }
    for (const { kind, request } of kinds) {
      const count: QueryCount = { kind, service: [], baseline: [], serviceSql: [], baselineSql: [] };
      for (const server of [pair.service, pair.baseline]) {
        const send = async (i: number) => {
          const r = request(i);
          const headers: Record<string, string> = {};
          if (r.token !== undefined) headers.authorization = `Bearer ${tokens[r.token]}`;
          if (r.body) headers['content-type'] = 'application/json';
          const response = await httpJson(server.url + r.path, { method: r.method ?? 'GET', headers, body: r.body });
          if (response.status !== 200)
            throw new Error(`${server.name} ${kind}: ${response.status} ${JSON.stringify(response.body)}`);
        };
        await send(100); // warm (lazy metadata, prepared paths)
        for (let i = 0; i < 5; i++) {
          proxy.reset();
          await send(i);
          await sleep(5);
          const all = proxy.statements();
          const delivery = QueryProxy.isDeliveryWork(all);
          const captured = all.filter((_, index) => !delivery[index]);
          (server === pair.service ? count.service : count.baseline).push(captured.length);
          if (server === pair.service) (count.serviceDelivery ??= []).push(all.length - captured.length);
          if (i === 4) {
            const sql = captured.map((c) => c.sql ?? c.command);
            if (server === pair.service) count.serviceSql = sql;
            else count.baselineSql = sql;
          }
        }
      }
      counts.push(count);
      log(
        `  queries/request ${kind}: service ${count.service.join(',')} (dispatcher ${count.serviceDelivery?.join(',')})  baseline ${count.baseline.join(',')}`,
      );
      count.serviceSql.forEach((sql, index) => {
        // The list's statements: the session check folded into the total, then the page.
        statements.push({ shape: `${kind} — #${index + 1}`, sql });
      });
    }
  } finally {
    await stopAll(pair);
    await proxy.stop();
  }
  return { counts, statements };
}

async function cursorCheck(
  server: ServerHandle,
  tokens: string[],
): Promise<{ supported: boolean; detail: string; path?: string }> {
  const auth = { authorization: `Bearer ${tokens[0]}` };
  const first = await httpJson(`${server.url}/api/notifications?limit=20`, { headers: auth });
  const next = (first.body as { pagination?: { nextCursor?: unknown } }).pagination?.nextCursor;
  if (typeof next !== 'string') {
    const probe = await httpJson(`${server.url}/api/notifications?cursor=x`, { headers: auth });
    return {
      supported: false,
      detail: `not implemented: no pagination.nextCursor in the list response; ?cursor=... answers ${probe.status}`,
    };
  }
  let cursor: string = next;
  const started = performance.now();
  for (let page = 2; page < config.deepPage; page++) {
    const response = await httpJson(`${server.url}/api/notifications?limit=20&cursor=${encodeURIComponent(cursor)}`, {
      headers: auth,
    });
    const value = (response.body as { pagination?: { nextCursor?: unknown } }).pagination?.nextCursor;
    if (response.status !== 200 || typeof value !== 'string') {
      return {
        supported: false,
        detail: `cursor walk stopped at page ${page}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`,
      };
    }
    cursor = value;
  }
  const walkMs = performance.now() - started;
  const byCursor = await httpJson(`${server.url}/api/notifications?limit=20&cursor=${encodeURIComponent(cursor)}`, {
    headers: auth,
  });
  const byPage = await httpJson(`${server.url}/api/notifications?limit=20&page=${config.deepPage}`, { headers: auth });
  const ids = (body: unknown) =>
    ((body as { notifications?: { id: string }[] }).notifications ?? []).map((n) => n.id).join(',');
  const same = ids(byCursor.body) === ids(byPage.body);
  return {
    supported: true,
    path: `/api/notifications?limit=20&cursor=${encodeURIComponent(cursor)}`,
    detail: `walked to page ${config.deepPage} by cursor in ${fmt(walkMs, 0)} ms; cursor page ${same ? 'equals' : 'DIFFERS FROM'} ?page=${config.deepPage}`,
  };
}

/** The cursor walk check, and the list-heavy-cursor scenario when it is selected (the walk is skipped otherwise). */
async function addCursorScenario(
  db: DatabaseResults,
  service: ServerHandle,
  tokens: string[],
  scenarios: Scenario[],
): Promise<void> {
  if (config.scenarios && !config.scenarios.includes('list-heavy-cursor')) return;
  const cursor = await cursorCheck(service, tokens);
  db.cursor = { supported: cursor.supported, detail: cursor.detail };
  log(`Cursor (${db.database}): ${cursor.detail}`);
  if (!cursor.supported || !cursor.path) return;
  const path = cursor.path;
  scenarios.push({
    name: 'list-heavy-cursor',
    title: `Cursor (keyset) at page ${config.deepPage}, heavy user`,
    job: () => ({ method: 'GET', connections: config.connections, tokens: [tokens[0]], items: [[path, 0]] }),
  });
}

async function floodTest(server: ServerHandle, paths: Paths, tokens: string[], dbPid?: number): Promise<FloodResult> {
  const typicalTokens = tokens.slice(1, config.probeUsers + 1);
  const listJob = {
    url: server.url,
    method: 'GET' as const,
    connections: config.floodConnections,
    overallRate: config.floodRate,
    tokens: typicalTokens,
    items: typicalTokens.map((_, index): [string, number] => ['/api/notifications', index]),
    duration: config.duration,
    warmup: 1,
    waitForGo: true,
    tag: `flood-list-${server.name}`,
  };
  const idle = await measure(server, paths.worker, listJob, dbPid);
  log(`  idle list at ${config.floodRate} req/s: ${describeRun(idle)}`);
  const login = new LoadProcess(paths.worker, {
    url: server.url,
    method: 'POST',
    connections: config.loginConnections,
    tokens: [],
    items: Array.from({ length: Math.min(config.users - 1, 2000) }, (_, i) => [
      '/api/auth/login',
      -1,
      JSON.stringify({ username: username(i + 1), password: config.password }),
    ]),
    duration: config.duration + 4,
    warmup: 0,
    waitForGo: false,
    tag: `flood-login-${server.name}`,
  });
  try {
    await login.warm;
    await sleep(2000);
    const flood = await measure(server, paths.worker, { ...listJob, warmup: 0, tag: `${listJob.tag}-flood` }, dbPid);
    const loginResult = await login.result;
    log(`  list during login flood: ${describeRun(flood)}`);
    log(
      `  logins during the flood: ${fmt(loginResult.rps)}/s, p99 ${fmt(loginResult.latency.p99, 0)} ms, non-2xx ${loginResult.requests - loginResult.ok}`,
    );
    return { idle, flood, login: loginResult, p99Ratio: flood.load.latency.p99 / idle.load.latency.p99 };
  } finally {
    login.kill();
  }
}

/** Unmeasured load on both servers (JIT, pools, caches) before the first measured scenario. */
async function warmServers(servers: ServerHandle[], paths: Paths, tokens: string[], plan: DataPlan): Promise<void> {
  if (config.serverWarmup <= 0) return;
  const typicalTokens = tokens.slice(1, config.probeUsers + 1);
  for (const server of servers) {
    for (const [method, items, bodyTemplate, list] of [
      ['GET', typicalTokens.map((_, i): [string, number] => ['/api/notifications', i]), undefined, typicalTokens],
      [
        'PUT',
        Array.from({ length: 200 }, (_, i): [string, number] => {
          const j = config.documents - 1 - i - 200 * servers.indexOf(server);
          return [`/api/documents/${documentId(j)}`, documentOwner(plan, j)];
        }),
        UPDATE_BODY,
        tokens,
      ],
    ] as const) {
      const load = new LoadProcess(paths.worker, {
        url: server.url,
        method,
        connections: config.connections,
        tokens: [...list],
        items: [...items],
        bodyTemplate,
        duration: config.serverWarmup / 2,
        warmup: 0,
        waitForGo: false,
        tag: `warm-${server.name}-${Date.now()}`,
      });
      await load.result;
    }
  }
  log(`Servers warmed up (${config.serverWarmup} s each, list + update, unmeasured)`);
}

function printExplain(entries: ExplainEntry[]): void {
  for (const entry of entries) {
    log(`  EXPLAIN ${entry.database} ${entry.shape}${entry.fails ? '  <-- FAILS' : ''}`);
    log(`    ${entry.sql.slice(0, 300)}`);
    for (const line of entry.plan) log(`      ${line}`);
    if (entry.flags.length) log(`      flags: ${entry.flags.join('; ')}`);
  }
}

function selectScenarios(all: Scenario[]): Scenario[] {
  return config.scenarios ? all.filter((s) => config.scenarios!.includes(s.name)) : all;
}

async function mysqlPhase(paths: Paths, plan: DataPlan, tokens: string[], results: BenchResults): Promise<void> {
  const db: DatabaseResults = { database: 'mysql', load: {}, loadSeconds: 0, servers: {}, scenarios: [], explain: [] };
  results.mysql = db;
  const times: LoadTimes = db.load;
  let reuse = false;
  if (config.reuse) {
    try {
      const connection = await adminConnection(config, config.mysqlDatabase);
      const [[row]] = (await connection.query('SELECT COUNT(*) AS n FROM notifications')) as unknown as [
        [{ n: number }],
      ];
      await connection.end();
      reuse = Number(row.n) === config.notifications;
    } catch {
      reuse = false;
    }
    log(
      reuse ? 'MariaDB: reusing the existing bench database (BENCH_REUSE=1)' : 'MariaDB: no reusable database, loading',
    );
  }
  const growth = config.growth && !reuse && plan.stage1Total > 0 && plan.stage2Total > 0;
  let loadSeconds = 0;
  if (!reuse) {
    const t0 = performance.now();
    log(
      `MariaDB: loading ${config.users} users, ${config.documents} documents, ${plan.stage1Total} + ${plan.stage2Total} notifications`,
    );
    await createMysqlSchema(config);
    await loadMysqlBase(config, plan, times);
    if (growth) await loadMysqlNotifications(config, plan, 1, times);
    loadSeconds += (performance.now() - t0) / 1000;
  }
  const dbPid = pidOf('mariadbd') ?? pidOf('mysqld');
  const all = buildScenarios(config, plan, tokens);
  const typical = all.find((s) => s.name === 'list-typical')!;
  let stage1Result;
  if (growth) {
    const early = await startPair(paths, 'mysql', mysqlUrl(config), tokens);
    try {
      await warmServers(serverList(early), paths, tokens, plan);
      log(`Growth, stage 1: ${plan.stage1Total} notifications in the table`);
      stage1Result = await runScenario(typical, 'mysql', early, config, paths.worker, dbPid);
    } finally {
      await stopAll(early);
    }
  }
  if (!reuse) {
    const t0 = performance.now();
    if (!growth) await loadMysqlNotifications(config, plan, 1, times);
    await loadMysqlNotifications(config, plan, 2, times);
    loadSeconds += (performance.now() - t0) / 1000;
    db.loadSeconds = loadSeconds;
    log(`MariaDB: data loaded in ${loadSeconds.toFixed(0)} s`);
  }
  const check = await verifyMysqlCounts(config, userId(0));
  db.countsCheck = `notification_counts ${check.ok ? 'exact' : 'WRONG'}: ${check.detail}`;
  log(`MariaDB: ${db.countsCheck}`);
  db.sizes = await mysqlTableSizes(config);
  const n = db.sizes.notifications;
  if (n) log(`MariaDB: notifications ~${n.rows} rows, data ${fmt(n.dataMb, 0)} MB, indexes ${fmt(n.indexMb, 0)} MB`);
  // Only inbox scenarios selected: they run after this phase (bench/inbox/), on the data loaded here.
  if (inboxOnly(config)) return;

  log('MariaDB: counting queries per request through a protocol proxy');
  const { counts, statements } = await countQueries(paths, plan, tokens);
  db.queryCounts = counts;
  db.explain = await explainMysql(config, statements);
  printExplain(db.explain);

  // Fresh servers on the full table.
  const pair = await startPair(paths, 'mysql', mysqlUrl(config), tokens);
  try {
    db.servers = pair.starts;
    await warmServers(serverList(pair), paths, tokens, plan);
    const scenarios = selectScenarios(all);
    await addCursorScenario(db, pair.service, tokens, scenarios);
    for (const scenario of scenarios) {
      const shape = await shapeCheck(scenario, pair);
      log(`[mysql] ${scenario.name}: response check: ${shape}`);
      const result = await runScenario(scenario, 'mysql', pair, config, paths.worker, dbPid);
      result.shapeCheck = shape;
      db.scenarios.push(result);
    }
    const full = db.scenarios.find((s) => s.name === 'list-typical');
    if (stage1Result) {
      db.growth = {
        stage1Rows: plan.stage1Total,
        fullRows: config.notifications,
        stage1: stage1Result,
        full,
        p50Ratio: full ? full.service.p50 / stage1Result.service.p50 : NaN,
        rpsRatio: full ? full.service.rps / stage1Result.service.rps : NaN,
      };
    }
    if (!config.scenarios || config.scenarios.includes('flood')) {
      log(
        `[mysql] login flood: list at ${config.floodRate} req/s idle, then during a login flood (${config.loginConnections} connections)`,
      );
      db.flood = {};
      for (const role of ['service', 'baseline'] as const) {
        log(` ${role}:`);
        db.flood[role] = await floodTest(pair[role], paths, tokens, dbPid);
      }
    }
  } finally {
    await stopAll(pair);
  }
}

async function sqlitePhase(paths: Paths, plan: DataPlan, tokens: string[], results: BenchResults): Promise<void> {
  const db: DatabaseResults = { database: 'sqlite', load: {}, loadSeconds: 0, servers: {}, scenarios: [], explain: [] };
  results.sqlite = db;
  const reuse = config.reuse && existsSync(config.sqlitePath);
  if (!reuse) {
    const t0 = performance.now();
    log(`SQLite: loading ${config.users} users, ${config.documents} documents, ${config.notifications} notifications`);
    await createSqliteSchema(config);
    loadSqlite(config, plan, db.load);
    db.loadSeconds = (performance.now() - t0) / 1000;
    log(`SQLite: data loaded in ${db.loadSeconds.toFixed(0)} s`);
  }
  const url = `sqlite:${config.sqlitePath}`;
  const pair = await startPair(paths, 'sqlite', url, tokens);
  try {
    db.servers = pair.starts;
    await warmServers(serverList(pair), paths, tokens, plan);
    const scenarios = selectScenarios(buildScenarios(config, plan, tokens));
    await addCursorScenario(db, pair.service, tokens, scenarios);
    for (const scenario of scenarios) {
      const shape = await shapeCheck(scenario, pair);
      log(`[sqlite] ${scenario.name}: response check: ${shape}`);
      const result = await runScenario(scenario, 'sqlite', pair, config, paths.worker);
      result.shapeCheck = shape;
      db.scenarios.push(result);
    }
  } finally {
    await stopAll(pair);
  }
}

function writeResults(results: BenchResults): string {
  const dir = join(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  writeFileSync(join(dir, 'latest.md'), markdown(results));
  return dir;
}

/** The attention part (issue 33) on each selected database; writes bench/results/attention.{json,md}. */
async function attentionPart(paths: Paths, passwordHash: string, git: string): Promise<void> {
  const context: AttentionContext = {
    config,
    settings: attention,
    paths,
    serviceEnv,
    nodeFlags: productionNodeFlags(projectRoot),
    passwordHash,
    dbPid: pidOf('mariadbd') ?? pidOf('mysqld'),
  };
  const databases: AttentionDbResults[] = [];
  if (config.mysql) databases.push(await runAttention(context, 'mysql'));
  if (config.sqlite) databases.push(await runAttention({ ...context, dbPid: undefined }, 'sqlite'));
  const targets = attentionTargets(databases);
  const dir = writeAttentionResults(projectRoot, {
    date: new Date().toISOString(),
    git,
    settings: attention,
    databases,
    targets,
  });
  for (const target of targets) {
    log(`  ${target.database} ${target.target}: ${target.measured} ${target.met ? 'met' : 'NOT MET'}`);
  }
  log(`Attention results written to ${dir}/attention.json and attention.md`);
}

let cleaningUp = false;
async function cleanup(paths: Paths | undefined): Promise<void> {
  if (cleaningUp) return;
  cleaningUp = true;
  killAllChildren();
  if (!config.keep) {
    if (config.mysql) await Promise.race([dropMysql(config).catch(() => undefined), sleep(10_000)]);
    if (config.sqlite) removeSqlite(config.sqlitePath);
    await Promise.race([dropDocumentData(config, documents).catch(() => undefined), sleep(10_000)]);
    await Promise.race([dropAttentionData(attentionConfig(config, attention)), sleep(10_000)]);
    await Promise.race([dropContentData(config, content).catch(() => undefined), sleep(10_000)]);
  } else {
    log(`BENCH_KEEP=1: keeping database ${config.mysqlDatabase} and ${config.sqlitePath}`);
  }
  if (paths) rmSync(paths.root, { recursive: true, force: true });
}

async function main(): Promise<void> {
  log(
    `Configuration:\n  ${describeConfig(config)}\n  ${describeDocConfig(documents)}\n  ${describeContentConfig(content)}`,
  );
  let paths: Paths | undefined;
  const onSignal = (signal: string) => {
    log(`${signal}: stopping children and cleaning up`);
    void cleanup(paths).finally(() => process.exit(130));
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('exit', () => killAllChildren());
  try {
    paths = snapshot();
    const results: BenchResults = {
      date: new Date().toISOString(),
      machine: await machineInfo(),
      config: Object.fromEntries(
        Object.entries(config).filter(([k]) => k !== 'password' && k !== 'jwtSecret'),
      ) as BenchResults['config'],
      targets: [],
      notes: [
        'Measured on a shared 2-core machine while other work was running; see the load averages above.',
        'The load generator (autocannon) runs on the same 2 cores as the servers and the database.',
      ],
    };
    log(`Machine: ${JSON.stringify(results.machine)}`);
    // BENCH_SCENARIOS=attention: issue 33's part alone, on its own data (bench/attention/).
    if (attentionOnly(config)) {
      await attentionPart(paths, await hashBenchPassword(config), String(results.machine.git));
      return;
    }
    if (contentOnly) {
      await contentPhases(paths, results.machine);
      return;
    }
    if (documents.mode !== 'only') results.micro = await runMicro(config);
    const passwordHash = await hashBenchPassword(config);
    const plan = makePlan(config, passwordHash);
    const tokens = signTokens(config, plan);
    log(
      `Plan: heavy user ${plan.counts[0]} notifications, typical users ${plan.typicalCount} each; growth stage 1 = ${plan.stage1Total} rows`,
    );
    if (config.mysql && documents.mode !== 'only') await mysqlPhase(paths, plan, tokens, results);
    if (config.mysql && documents.mode !== 'only' && inboxSelected(config)) {
      results.inbox = await runInboxMysql({
        config,
        plan,
        tokens,
        paths,
        serviceEnv,
        nodeFlags: productionNodeFlags(projectRoot),
        dbPid: pidOf('mariadbd') ?? pidOf('mysqld'),
      });
      if (results.inbox.unreadCount) results.mysql?.scenarios.push(results.inbox.unreadCount);
    }
    // Documents (issue 11): own data, own baseline; BENCH_DOCS=only runs just these, 0 skips them.
    if (config.mysql && documents.mode !== 'off') {
      (results.documents ??= {}).mysql = await runDocumentPhase(documentContext('mysql', paths, passwordHash));
    }
    if (config.sqlite && documents.mode !== 'only') await sqlitePhase(paths, plan, tokens, results);
    if (config.sqlite && documents.mode !== 'off') {
      (results.documents ??= {}).sqlite = await runDocumentPhase(documentContext('sqlite', paths, passwordHash));
    }
    // Governance (issue 29): own databases, own results file (bench/results/governance.md).
    if (documents.mode !== 'only' && process.env.BENCH_GOVERNANCE !== '0')
      await runGovernance(paths.root, paths.serviceMain);
    if (documents.mode !== 'only' && attentionSelected(config)) {
      await attentionPart(paths, passwordHash, String(results.machine.git));
    }
    if (content.mode !== 'off') await contentPhases(paths, results.machine);
    results.machine.loadAtEnd = loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
    results.targets = evaluateTargets(results);
    // BENCH_DOCS=only: the notification targets were not measured; leave them out of the table.
    if (documents.mode === 'only') results.targets = results.targets.filter((t) => t.id.startsWith('doc-'));
    const dir = writeResults(results);
    log(
      `Results written to ${dir}/latest.json and latest.md (total ${((performance.now() - benchStarted) / 60000).toFixed(1)} min)`,
    );
    process.stdout.write(`\n${textTable(results)}\n`);
  } finally {
    await cleanup(paths);
  }
}

/** The content phases (issue 28; own data, own baseline) on each database; results to bench/results/content.*. */
async function contentPhases(paths: Paths, machine: Record<string, unknown>): Promise<void> {
  const passwordHash = await hashBenchPassword(config);
  const results: ContentResults = {};
  for (const kind of ['mysql', 'sqlite'] as const) {
    if (!config[kind]) continue;
    results[kind] = await runContentPhase(documentContext(kind, paths, passwordHash), content);
  }
  const targets = writeContentResults(projectRoot, results, {
    ...machine,
    loadAtEnd: loadavg()
      .map((v) => v.toFixed(2))
      .join(' '),
  });
  for (const target of targets) {
    log(`  ${target.met === null ? '-' : target.met ? 'MET ' : 'MISS'} ${target.description}: ${target.measured}`);
  }
  log(`Content results written to bench/results/content.json and content.md`);
}

/** BENCH_REPORT_ONLY=1: re-evaluate the targets and rewrite latest.md from bench/results/latest.json. */
function reportOnly(): void {
  const file = join(projectRoot, 'bench', 'results', 'latest.json');
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  results.targets = evaluateTargets(results);
  writeResults(results);
  process.stdout.write(`${textTable(results)}\n`);
}

if (process.env.BENCH_REPORT_ONLY === '1') {
  reportOnly();
  process.exit(0);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    killAllChildren();
    process.exit(1);
  },
);
