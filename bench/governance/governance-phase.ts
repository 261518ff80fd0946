// The governance part of `npm run bench` (issue 29's "Measured"), once per database, through HTTP:
// the same build started twice on one database, "chained" as it ships and "unchained" with
// bench/governance/unchained-audit.js preloaded (audit events still written, without the chain),
// then alternating rounds of document updates and audited writes on each; and GET /s/{token}
// against the authenticated download of the same file on the chained service.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchConfig } from '../config.js';
import { int } from '../config.js';
import { adminConnection, mysqlUrl } from '../load-mysql.js';
import type { LoadJob } from '../load-types.js';
import { measure, type Measurement } from '../loadrun.js';
import { UPDATE_BODY } from '../scenarios.js';
import { startServer, type ServerHandle } from '../servers.js';
import { fmt, fmtRatio, freePort, httpJson, log, median, range } from '../util.js';

export interface GovernanceConfig {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  /** Documents and projects the writes rotate over (distinct rows, so only the chain is shared). */
  targets: number;
  fileKb: number;
  /** Connections of the download comparison: sequential, and as many as the writes. */
  downloadConnections: number[];
  /** BENCH_GOV_SCENARIOS: a comma list of scenario names; unset runs all. */
  scenarios?: string[];
}

export function loadGovernanceConfig(config: BenchConfig): GovernanceConfig {
  return {
    rounds: int('BENCH_GOV_ROUNDS', 5, 1),
    duration: int('BENCH_GOV_DURATION', 5, 1),
    warmup: int('BENCH_GOV_WARMUP', 1),
    connections: int('BENCH_GOV_CONNECTIONS', config.connections, 1),
    targets: int('BENCH_GOV_TARGETS', 64, 1),
    fileKb: int('BENCH_GOV_FILE_KB', 64, 1),
    downloadConnections: [1, int('BENCH_GOV_CONNECTIONS', config.connections, 1)],
    scenarios: process.env.BENCH_GOV_SCENARIOS?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  };
}

export interface GovernancePhaseContext {
  kind: 'mysql' | 'sqlite';
  config: BenchConfig;
  gov: GovernanceConfig;
  /** Root of the dist/ copy the bench runs from (its dist/bench/governance holds the preload). */
  root: string;
  serviceMain: string;
  probe: string;
  loadWorker: string;
  nodeFlags: string[];
}

type JobSpec = Pick<LoadJob, 'method' | 'items' | 'tokens' | 'bodyTemplate' | 'connections'>;

interface Side {
  label: string;
  server: ServerHandle;
  job: JobSpec;
}

export interface PairRound {
  a: number;
  b: number;
  ratio: number;
}

export interface PairResult {
  name: string;
  title: string;
  a: string;
  b: string;
  connections: number;
  rounds: PairRound[];
  /** Median of the per-round req/s ratios a / b. */
  ratio: number;
  aRps: number;
  bRps: number;
  aP50: number;
  bP50: number;
  aP99: number;
  bP99: number;
  aCpuUs: number;
  bCpuUs: number;
  statuses: Record<string, number>;
}

export interface GovernanceResult {
  kind: 'mysql' | 'sqlite';
  loadBefore: string;
  loadAfter: string;
  pairs: PairResult[];
  chainHead: { count: number };
}

const PASSWORD = 'Bench-Governance-Password-2026!';
const SHARE_BODY = () => JSON.stringify({ expiresAt: new Date(Date.now() + 86_400_000).toISOString() });

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

function serviceEnv(ctx: GovernancePhaseContext, databaseUrl: string, port: number, storageDir: string) {
  return {
    NODE_ENV: 'production',
    JWT_SECRET: ctx.config.jwtSecret,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOGIN_RATE_LIMIT_PER_IP: '1000000',
    LOGIN_RATE_LIMIT_PER_USERNAME: '1000000',
    STORAGE_DIR: storageDir,
    // No text extraction of the uploaded files in the background of the measured rounds.
    CONTENT_WORKERS: '0',
  };
}

async function ok<T>(what: string, answer: Promise<{ status: number; body: unknown }>): Promise<T> {
  const { status, body } = await answer;
  if (status < 200 || status > 299) throw new Error(`${what} answered ${status}: ${JSON.stringify(body)}`);
  return body as T;
}

interface Fixture {
  token: string;
  documents: string[];
  projects: string[];
  shareToken: string;
}

/** Demo seed (admin), then N documents with a file of BENCH_GOV_FILE_KB, N projects and one share link. */
async function prepare(ctx: GovernancePhaseContext, url: string): Promise<Fixture> {
  const json = { 'content-type': 'application/json' };
  const { token } = await ok<{ token: string }>(
    'login',
    httpJson(`${url}/api/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    }),
  );
  const auth = { authorization: `Bearer ${token}` };
  const { projects } = await ok<{ projects: { id: string }[] }>(
    'projects',
    httpJson(`${url}/api/projects`, { headers: auth }),
  );
  const { documentTypes } = await ok<{ documentTypes: { id: string }[] }>(
    'types',
    httpJson(`${url}/api/document-types`, { headers: auth }),
  );
  const file = Buffer.alloc(ctx.gov.fileKb * 1024, 'governance bench file. ');
  const documents: string[] = [];
  const created: string[] = [];
  for (let index = 0; index < ctx.gov.targets; index++) {
    const form = new FormData();
    form.set('title', `Governance bench ${index}`);
    form.set('projectId', projects[0].id);
    form.set('documentTypeId', documentTypes[0].id);
    form.set('file', new Blob([file], { type: 'application/octet-stream' }), `g${index}.bin`);
    const response = await fetch(`${url}/api/documents`, { method: 'POST', headers: auth, body: form });
    const body = (await response.json()) as { document: { id: string } };
    if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
    documents.push(body.document.id);
    const project = await ok<{ project: { id: string } }>(
      'project',
      httpJson(`${url}/api/projects`, {
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify({ name: `Governance bench ${ctx.kind} ${index}` }),
      }),
    );
    created.push(project.project.id);
  }
  const share = await ok<{ token: string }>(
    'share',
    httpJson(`${url}/api/documents/${documents[0]}/shares`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: SHARE_BODY(),
    }),
  );
  return { token, documents, projects: created, shareToken: share.token };
}

/** Alternating rounds a, b, a, b …; the ratio is the median of the per-round ratios. */
async function pair(
  ctx: GovernancePhaseContext,
  name: string,
  title: string,
  a: Side,
  b: Side,
): Promise<PairResult | undefined> {
  if (ctx.gov.scenarios?.length && !ctx.gov.scenarios.includes(name)) return undefined;
  const rounds: PairRound[] = [];
  const runs: { a: Measurement[]; b: Measurement[] } = { a: [], b: [] };
  const statuses: Record<string, number> = {};
  const run = async (side: Side, round: number) => {
    const result = await measure(side.server, ctx.loadWorker, {
      ...side.job,
      url: side.server.url,
      duration: ctx.gov.duration,
      warmup: ctx.gov.warmup,
      tag: `${name}-${side.label}-${round}`,
      waitForGo: true,
    });
    for (const [code, count] of Object.entries(result.load.statuses)) {
      const key = `${side.label} ${code}`;
      statuses[key] = (statuses[key] ?? 0) + count;
    }
    return result;
  };
  for (let round = 0; round < ctx.gov.rounds; round++) {
    // Alternate which side goes first, so a drift in the machine's load favours neither.
    const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
    const one = await run(first, round);
    const two = await run(second, round);
    const [ma, mb] = first === a ? [one, two] : [two, one];
    runs.a.push(ma);
    runs.b.push(mb);
    rounds.push({ a: ma.load.rps, b: mb.load.rps, ratio: ma.load.rps / mb.load.rps });
    log(
      `[${ctx.kind} governance] ${name} round ${round + 1}: ${a.label} ${fmt(ma.load.rps)} req/s, ${b.label} ${fmt(mb.load.rps)} req/s, ratio ${fmtRatio(ma.load.rps / mb.load.rps)} (load ${loadAverage()})`,
    );
  }
  const at = (list: Measurement[], pick: (m: Measurement) => number) => median(list.map(pick));
  return {
    name,
    title,
    a: a.label,
    b: b.label,
    connections: a.job.connections,
    rounds,
    ratio: median(rounds.map((round) => round.ratio)),
    aRps: at(runs.a, (m) => m.load.rps),
    bRps: at(runs.b, (m) => m.load.rps),
    aP50: at(runs.a, (m) => m.load.latency.p50),
    bP50: at(runs.b, (m) => m.load.latency.p50),
    aP99: at(runs.a, (m) => m.load.latency.p99),
    bP99: at(runs.b, (m) => m.load.latency.p99),
    aCpuUs: at(runs.a, (m) => m.cpuPerRequestUs),
    bCpuUs: at(runs.b, (m) => m.cpuPerRequestUs),
    statuses,
  };
}

async function createDatabase(ctx: GovernancePhaseContext): Promise<{ url: string; drop(): Promise<void> }> {
  if (ctx.kind === 'mysql') {
    const database = `${ctx.config.mysqlDatabase}_governance`;
    const admin = await adminConnection(ctx.config);
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.end();
    return {
      url: mysqlUrl({ ...ctx.config, mysqlDatabase: database }),
      async drop() {
        const again = await adminConnection(ctx.config);
        await again.query(`DROP DATABASE IF EXISTS \`${database}\``);
        await again.end();
      },
    };
  }
  const path = `${ctx.config.sqlitePath}-governance.sqlite`;
  mkdirSync(join(path, '..'), { recursive: true });
  const remove = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  };
  remove();
  return { url: `sqlite:${path}`, drop: async () => remove() };
}

export async function runGovernancePhase(ctx: GovernancePhaseContext): Promise<GovernanceResult> {
  const loadBefore = loadAverage();
  const database = await createDatabase(ctx);
  const storageDir = join(ctx.root, `governance-files-${ctx.kind}`);
  mkdirSync(storageDir, { recursive: true });
  const servers: ServerHandle[] = [];
  const start = async (name: string, extra: Record<string, string>, preload: string[]) => {
    const port = await freePort();
    const server = await startServer({
      name,
      script: ctx.serviceMain,
      cwd: ctx.root,
      port,
      env: { ...serviceEnv(ctx, database.url, port, storageDir), ...extra },
      probePath: ctx.probe,
      nodeFlags: [...ctx.nodeFlags, ...preload],
    });
    servers.push(server);
    return server;
  };
  try {
    const chained = await start(
      'chained',
      { DB_MIGRATIONS_RUN: 'true', SEED_DEMO: 'true', SEED_PASSWORD: PASSWORD },
      [],
    );
    const unchainedPreload = pathToFileURL(join(ctx.root, 'dist/bench/governance/unchained-audit.js')).href;
    const unchained = await start('unchained', { DB_MIGRATIONS_RUN: 'false' }, ['--import', unchainedPreload]);
    log(`[${ctx.kind} governance] preparing ${ctx.gov.targets} documents and projects`);
    const fixture = await prepare(ctx, chained.url);
    const tokens = [fixture.token];
    const connections = ctx.gov.connections;
    const both = (job: JobSpec): [Side, Side] => [
      { label: 'chained', server: chained, job },
      { label: 'unchained', server: unchained, job },
    ];
    const pairs: (PairResult | undefined)[] = [];
    pairs.push(
      await pair(
        ctx,
        'update-chain',
        'PUT /api/documents/{id} (title and tags), chain on vs off',
        ...both({
          method: 'PUT',
          connections,
          tokens,
          items: fixture.documents.map((id) => [`/api/documents/${id}`, 0]),
          bodyTemplate: UPDATE_BODY,
        }),
      ),
    );
    pairs.push(
      await pair(
        ctx,
        'project-update-chain',
        'PATCH /api/projects/{id} (description; audited: project.updated), chain on vs off',
        ...both({
          method: 'PATCH',
          connections,
          tokens,
          items: fixture.projects.map((id) => [`/api/projects/${id}`, 0]),
          bodyTemplate: '{"description":"Governance bench {n}"}',
        }),
      ),
    );
    pairs.push(
      await pair(
        ctx,
        'share-create-chain',
        'POST /api/documents/{id}/shares (no password; audited: share.created), chain on vs off',
        ...both({
          method: 'POST',
          connections,
          tokens,
          items: fixture.documents.map((id) => [`/api/documents/${id}/shares`, 0, SHARE_BODY()]),
        }),
      ),
    );
    for (const downloadConnections of ctx.gov.downloadConnections) {
      const shared: JobSpec = {
        method: 'GET',
        connections: downloadConnections,
        tokens,
        items: [[`/s/${fixture.shareToken}`, -1]],
      };
      pairs.push(
        await pair(
          ctx,
          `share-download-${downloadConnections}`,
          `GET /s/{token} vs GET /api/documents/{id}/content, ${ctx.gov.fileKb} KiB, ${downloadConnections} connection(s)`,
          { label: 'share', server: chained, job: shared },
          {
            label: 'authenticated',
            server: chained,
            job: { ...shared, items: [[`/api/documents/${fixture.documents[0]}/content`, 0]] },
          },
        ),
      );
    }
    pairs.push(
      await pair(
        ctx,
        'share-download-chain',
        `GET /s/{token}, ${ctx.gov.fileKb} KiB, ${connections} connections, chain on vs off`,
        ...both({ method: 'GET', connections, tokens, items: [[`/s/${fixture.shareToken}`, -1]] }),
      ),
    );
    const head = await ok<{ count: number }>(
      'head',
      httpJson(`${chained.url}/api/audit-events/head`, { headers: { authorization: `Bearer ${fixture.token}` } }),
    );
    return {
      kind: ctx.kind,
      loadBefore,
      loadAfter: loadAverage(),
      pairs: pairs.filter((p) => p !== undefined),
      chainHead: { count: head.count },
    };
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
    rmSync(storageDir, { recursive: true, force: true });
  }
}

/** The Markdown of bench/results/governance.md. */
export function governanceMarkdown(results: GovernanceResult[], meta: { date: string; git: string }): string {
  const lines = [
    '# Governance bench (issue 29)',
    '',
    `${meta.date}, ${meta.git}. Ratios are medians of per-round req/s ratios, rounds alternating (A B, B A, …).`,
    '',
  ];
  for (const result of results) {
    lines.push(
      `## ${result.kind === 'mysql' ? 'MariaDB' : 'SQLite'} (load average before ${result.loadBefore}, after ${result.loadAfter})`,
      '',
      '| Scenario | A | B | conns | A req/s | B req/s | ratio A/B | per-round ratios (min–max) | A p50/p99 ms | B p50/p99 ms | target |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const p of result.pairs) {
      const [low, high] = range(p.rounds.map((round) => round.ratio));
      const target = targetOf(p.name);
      const verdict = target === undefined ? '–' : `≥ ${target}: ${p.ratio >= target ? 'met' : '**missed**'}`;
      lines.push(
        `| ${p.title} | ${p.a} | ${p.b} | ${p.connections} | ${fmt(p.aRps)} | ${fmt(p.bRps)} | **${fmtRatio(p.ratio)}** | ${fmtRatio(low)}–${fmtRatio(high)} | ${fmt(p.aP50)}/${fmt(p.aP99)} | ${fmt(p.bP50)}/${fmt(p.bP99)} | ${verdict} |`,
      );
    }
    const bad = result.pairs.flatMap((p) =>
      Object.entries(p.statuses)
        .filter(([key]) => !/ 2\d\d$/.test(key))
        .map(([key, count]) => `${p.name} ${key}: ${count}`),
    );
    lines.push('', bad.length ? `Non-2xx answers: ${bad.join(', ')}.` : 'Every answer was 2xx.', '');
  }
  return `${lines.join('\n')}\n`;
}

/** The targets: the update with the chain ≥ 0.85 × without, the share download ≥ 0.9 × the authenticated one. */
export function targetOf(name: string): number | undefined {
  if (name.endsWith('-chain') && name !== 'share-download-chain') return 0.85;
  if (name.startsWith('share-download-') && name !== 'share-download-chain') return 0.9;
  return undefined;
}
