import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { BenchConfig } from './config.js';
import { documentId, documentOwner, documentUpdatable, userId, username, type DataPlan } from './datagen.js';
import type { LoadJob } from './load-types.js';
import { measure, type Measurement } from './loadrun.js';
import type { ServerHandle } from './servers.js';
import { fmt, log, median, range } from './util.js';

export type JobSpec = Omit<LoadJob, 'url' | 'duration' | 'warmup' | 'waitForGo' | 'tag'>;

export interface Scenario {
  name: string;
  title: string;
  serviceOnly?: boolean;
  /** Builds the request list of one run (documents advance between runs). */
  job(): JobSpec;
  /** Called with the number of answered requests after each run. */
  consumed?(ok: number): void;
}

/** A token with the service's claims: sub = user id, ver = tokenVersion (0), iss, aud, exp in 12 h. */
export function signToken(config: BenchConfig, sub: string): string {
  return jwt.sign({ sub, ver: 0 }, createSecretKey(Buffer.from(config.jwtSecret)), {
    algorithm: 'HS256',
    issuer: config.issuer,
    audience: config.audience,
    expiresIn: '12h',
  });
}

export function signTokens(config: BenchConfig, plan: DataPlan): string[] {
  return Array.from({ length: plan.config.users }, (_, k) => signToken(config, userId(k)));
}

export const UPDATE_BODY = '{"title":"Bench title {n}","tags":["bench","load"]}';

export function buildScenarios(config: BenchConfig, plan: DataPlan, tokens: string[]): Scenario[] {
  const typicalTokens = tokens.slice(1, config.probeUsers + 1);
  const typicalItems: [string, number][] = typicalTokens.map((_, index) => ['/api/notifications', index]);
  const heavy = (path: string, title: string, name: string): Scenario => ({
    name,
    title,
    job: () => ({ method: 'GET', connections: config.connections, tokens: [tokens[0]], items: [[path, 0]] }),
  });
  let documentCursor = 0;
  const perRun = Math.min(config.documents, 40_000);
  return [
    {
      name: 'list-typical',
      title: `List page 1, typical users (${config.probeUsers} users x ${plan.typicalCount} notifications, rotating)`,
      job: () => ({ method: 'GET', connections: config.connections, tokens: typicalTokens, items: typicalItems }),
    },
    heavy('/api/notifications', `List page 1, heavy user (${config.heavy} notifications)`, 'list-heavy'),
    heavy('/api/notifications?status=pending', 'List page 1, heavy user, status=pending', 'list-heavy-status'),
    heavy('/api/notifications?type=push', 'List page 1, heavy user, type=push', 'list-heavy-type'),
    heavy('/api/notifications?unreadOnly=true', 'List page 1, heavy user, unreadOnly=true', 'list-heavy-unread'),
    heavy(
      `/api/notifications?page=${config.deepPage}&limit=20`,
      `List page ${config.deepPage} (limit 20), heavy user`,
      'list-heavy-deep',
    ),
    {
      name: 'update',
      title: 'Document update by its owner (distinct documents, conditional UPDATE + history row)',
      job: () => {
        const items: [string, number][] = [];
        for (let i = 0; i < perRun; i++) {
          const j = (documentCursor + i) % config.documents;
          if (!documentUpdatable(j)) continue;
          items.push([`/api/documents/${documentId(j)}`, documentOwner(plan, j)]);
        }
        return { method: 'PUT', connections: config.connections, tokens, items, bodyTemplate: UPDATE_BODY };
      },
      consumed: (ok) => {
        // One in six documents is archived and skipped: advance past the ones this run reached.
        documentCursor = (documentCursor + Math.ceil((ok * 6) / 5) + config.connections) % config.documents;
      },
    },
    {
      name: 'login',
      title: `Login (argon2id verify + HS256 sign), ${config.loginConnections} connections`,
      job: () => ({
        method: 'POST',
        connections: config.loginConnections,
        tokens: [],
        items: Array.from({ length: Math.min(config.users - 1, 2000) }, (_, i) => [
          '/api/auth/login',
          -1,
          JSON.stringify({ username: username(i + 1), password: config.password }),
        ]),
      }),
    },
  ];
}

export interface ServerSeries {
  runs: Measurement[];
  rps: number;
  rpsRange: [number, number];
  p50: number;
  p99: number;
  p99Range: [number, number];
  cpuPerRequestUs: number;
  dbCpuPerRequestUs: number;
  peakRssMb: number;
  lagP99: number;
  failures: number;
}

export interface ScenarioResult {
  name: string;
  title: string;
  database: 'mysql' | 'sqlite';
  service: ServerSeries;
  baseline?: ServerSeries;
  /** The second build of the service (BENCH_SERVICE_B_MAIN), measured in the same rounds. */
  serviceB?: ServerSeries;
  /** Medians over the repeats of the per-round ratios service/baseline (runs back to back). */
  rpsRatio: number;
  p99Ratio: number;
  cpuRatio: number;
  /** serviceB/baseline and service/serviceB, likewise (NaN without serviceB). */
  bRpsRatio?: number;
  abRpsRatio?: number;
  abP99Ratio?: number;
  shapeCheck?: string;
}

/** The servers a scenario alternates between. */
export interface ServerSet {
  service: ServerHandle;
  serviceB?: ServerHandle;
  baseline: ServerHandle;
}

function series(runs: Measurement[]): ServerSeries {
  const pick = (fn: (m: Measurement) => number) => runs.map(fn);
  return {
    runs,
    rps: median(pick((m) => m.load.rps)),
    rpsRange: range(pick((m) => m.load.rps)),
    p50: median(pick((m) => m.load.latency.p50)),
    p99: median(pick((m) => m.load.latency.p99)),
    p99Range: range(pick((m) => m.load.latency.p99)),
    cpuPerRequestUs: median(pick((m) => m.cpuPerRequestUs)),
    dbCpuPerRequestUs: median(pick((m) => m.dbCpuPerRequestUs)),
    peakRssMb: Math.max(...pick((m) => m.peakRssMb)),
    lagP99: median(pick((m) => m.lag.p99)),
    failures: runs.reduce((sum, m) => sum + (m.load.requests - m.load.ok) + m.load.errors, 0),
  };
}

export function describeRun(m: Measurement): string {
  const bad = m.load.requests - m.load.ok + m.load.errors;
  return (
    `${m.server.padEnd(9)} ${fmt(m.load.rps).padStart(8)} req/s  p50 ${fmt(m.load.latency.p50, 2)} ms  ` +
    `p99 ${fmt(m.load.latency.p99, 2)} ms  CPU ${fmt(m.cpuPerRequestUs, 0)} µs/req (${fmt(m.cpuUtilization * 100, 0)}%)  ` +
    `peak RSS ${fmt(m.peakRssMb, 0)} MB (heap ${fmt(m.heapUsedMb, 0)})  lag p99 ${fmt(m.lag.p99, 1)} ms` +
    (bad ? `  NON-2XX/ERRORS ${bad} ${JSON.stringify(m.load.statuses)} ${m.load.firstError ?? ''}` : '')
  );
}

/**
 * Service, serviceB (if any) and baseline back to back (A B C A B C ...), `repeats` rounds, each run
 * warmed up first; the ratios are medians of the per-round ratios.
 */
export async function runScenario(
  scenario: Scenario,
  database: 'mysql' | 'sqlite',
  servers: ServerSet,
  config: BenchConfig,
  workerPath: string,
  dbPid?: number,
): Promise<ScenarioResult> {
  log(`[${database}] ${scenario.name}: ${scenario.title}`);
  const roles = (['service', 'serviceB', 'baseline'] as const).filter(
    (role) => servers[role] && !(role === 'baseline' && scenario.serviceOnly),
  );
  const runs: Record<(typeof roles)[number], Measurement[]> = { service: [], serviceB: [], baseline: [] };
  for (let rep = 1; rep <= config.repeats; rep++) {
    for (const role of roles) {
      const server = servers[role]!;
      const spec = scenario.job();
      const m = await measure(
        server,
        workerPath,
        {
          ...spec,
          url: server.url,
          duration: config.duration,
          warmup: config.warmup,
          waitForGo: true,
          tag: `${database}-${scenario.name}-${role}-${rep}-${Date.now()}`,
        },
        dbPid,
      );
      scenario.consumed?.(m.load.requests);
      runs[role].push(m);
      log(`  #${rep} ${describeRun(m)}`);
    }
  }
  const ratio = (a: Measurement[], b: Measurement[], fn: (m: Measurement) => number) =>
    a.length && b.length ? median(a.map((m, i) => fn(m) / fn(b[i]))) : NaN;
  const rps = (m: Measurement) => m.load.rps;
  const p99 = (m: Measurement) => m.load.latency.p99;
  return {
    name: scenario.name,
    title: scenario.title,
    database,
    service: series(runs.service),
    baseline: runs.baseline.length ? series(runs.baseline) : undefined,
    serviceB: runs.serviceB.length ? series(runs.serviceB) : undefined,
    rpsRatio: ratio(runs.service, runs.baseline, rps),
    p99Ratio: ratio(runs.service, runs.baseline, p99),
    cpuRatio: ratio(runs.service, runs.baseline, (m) => m.cpuPerRequestUs),
    bRpsRatio: ratio(runs.serviceB, runs.baseline, rps),
    abRpsRatio: ratio(runs.service, runs.serviceB, rps),
    abP99Ratio: ratio(runs.service, runs.serviceB, p99),
  };
}
