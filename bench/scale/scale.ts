// Scale-out bench (issue 31), `npm run bench:scale`; method and numbers in bench/README.md, "Scale".
// Part 1: one instance vs two behind HAProxy (deploy/haproxy/haproxy.cfg via test/support/haproxy.ts),
// both on the local MariaDB, for the notification list and the document update; alternating rounds.
// Part 2: the document update on a single MariaDB vs a 3-node Galera cluster (test/support/galera-cluster.ts)
// behind HAProxy's single-writer TCP frontend; alternating rounds. Load: bench/load-worker.ts.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBenchConfig, type BenchConfig } from '../config.js';
import { makePlan, type DataPlan } from '../datagen.js';
import { createMysqlSchema, dropMysql, loadMysqlBase, loadMysqlNotifications, mysqlUrl } from '../load-mysql.js';
import { LoadProcess } from '../loadrun.js';
import { hashBenchPassword } from '../micro.js';
import { buildScenarios, signTokens, type Scenario } from '../scenarios.js';
import { killAllChildren, productionNodeFlags, startServer, type ServerHandle } from '../servers.js';
import { cpuSeconds, fmt, freePort, httpJson, log, median, pidOf, sleep } from '../util.js';
import { GaleraCluster, galeraAvailable } from '../../test/support/galera-cluster.js';
import { HaproxyProcess, haproxyAvailable } from '../../test/support/haproxy.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const paths = {
  main: join(root, 'dist/src/main.js'),
  probe: join(here, '../probe.js'),
  worker: join(here, '../load-worker.js'),
};

// Small data by default: the question is whether a second instance adds throughput, not page cost at size.
const DEFAULTS: Record<string, string> = {
  BENCH_USERS: '1000',
  BENCH_DOCUMENTS: '20000',
  BENCH_NOTIFICATIONS: '100000',
  BENCH_DURATION: '6',
  BENCH_WARMUP: '2',
  BENCH_REPEATS: '3',
  BENCH_MYSQL_DATABASE: 'dms_bench_scale',
  // Below the pool's 10 connections: with more, /health/ready's ping queues behind the load, times
  // out, and HAProxy takes the instance out (bench/README.md, "Scale").
  BENCH_CONNECTIONS: '8',
};
for (const [name, value] of Object.entries(DEFAULTS)) process.env[name] ??= value;
const config = loadBenchConfig();
/** What a signal must stop besides the servers: HAProxy, the Galera nodes. */
const stoppers = new Set<() => Promise<void>>();

interface Run {
  rps: number;
  p99: number;
  /** Answered requests per CPU-second of the instances and HAProxy. */
  perCore: number;
  /** Database servers' CPU per answered request, in ms (a shared server: others' work counts too). */
  dbMs: number;
  failed: number;
}

interface Comparison {
  scenario: string;
  a: string;
  b: string;
  runsA: Run[];
  runsB: Run[];
}

interface Target {
  name: string;
  url: string;
  /** The instances and HAProxy. */
  pids: number[];
  dbPids: number[];
}

/** One measured load run against the target, counting the CPU of its processes around it. */
async function measureRun(target: Target, scenario: Scenario, tag: string): Promise<Run> {
  const load = new LoadProcess(paths.worker, {
    ...scenario.job(),
    url: target.url,
    duration: config.duration,
    warmup: config.warmup,
    tag,
    waitForGo: true,
  });
  try {
    await load.warm;
    const cpu = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const before = [cpu(target.pids), cpu(target.dbPids)];
    load.go();
    const result = await load.result;
    const spent = cpu(target.pids) - before[0];
    const db = cpu(target.dbPids) - before[1];
    scenario.consumed?.(result.ok);
    return {
      rps: result.rps,
      p99: result.latency.p99,
      perCore: spent > 0 ? result.ok / spent : NaN,
      dbMs: result.ok ? (db / result.ok) * 1000 : NaN,
      failed: result.requests - result.ok,
    };
  } finally {
    load.kill();
  }
}

/** Alternating rounds of `a` and `b` (A B A B …), so the machine's load drifts over both alike. */
async function compare(scenario: Scenario, a: Target, b: Target): Promise<Comparison> {
  const comparison: Comparison = { scenario: scenario.name, a: a.name, b: b.name, runsA: [], runsB: [] };
  for (let round = 0; round < config.repeats; round++) {
    comparison.runsA.push(await measureRun(a, scenario, `${a.name}-${round}`));
    comparison.runsB.push(await measureRun(b, scenario, `${b.name}-${round}`));
    const [lastA, lastB] = [comparison.runsA.at(-1)!, comparison.runsB.at(-1)!];
    log(
      `  ${scenario.name} round ${round + 1}: ${a.name} ${fmt(lastA.rps, 0)} req/s (${fmt(lastA.perCore, 0)}/CPU-s, ` +
        `DB ${fmt(lastA.dbMs, 1)} ms, ${lastA.failed} failed), ${b.name} ${fmt(lastB.rps, 0)} req/s ` +
        `(${fmt(lastB.perCore, 0)}/CPU-s, DB ${fmt(lastB.dbMs, 1)} ms, ${lastB.failed} failed), load ${loadavg()[0].toFixed(1)}`,
    );
  }
  return comparison;
}

function serviceEnv(databaseUrl: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    JWT_SECRET: config.jwtSecret,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOGIN_RATE_LIMIT_PER_IP: '1000000',
    LOGIN_RATE_LIMIT_PER_USERNAME: '1000000',
    // Several instances: shared login throttle and SSE fan-out, as in the scaled topology.
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
  };
}

async function startInstance(name: string, databaseUrl: string): Promise<ServerHandle> {
  const port = await freePort();
  return startServer({
    name,
    script: paths.main,
    cwd: root,
    port,
    env: serviceEnv(databaseUrl, port),
    probePath: paths.probe,
    nodeFlags: productionNodeFlags(root),
    readyPath: '/health/ready',
  });
}

/** Until HAProxy sends a first list request through to an instance (its checks mark them up). */
async function throughProxy(url: string, token: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const answer = await httpJson(`${url}/api/notifications`, { headers: { authorization: `Bearer ${token}` } }).catch(
      () => undefined,
    );
    if (answer?.status === 200) return;
    await sleep(100);
  }
  throw new Error(`${url} did not answer through HAProxy`);
}

async function loadData(target: BenchConfig, plan: DataPlan, notifications: boolean): Promise<void> {
  const times = {};
  await createMysqlSchema(target);
  await loadMysqlBase(target, plan, times);
  if (notifications) {
    await loadMysqlNotifications(target, plan, 1, times);
    await loadMysqlNotifications(target, plan, 2, times);
  }
}

async function instancesPart(plan: DataPlan, tokens: string[], scenarios: Scenario[]): Promise<Comparison[]> {
  log(
    `Part 1: one instance vs two behind HAProxy, local MariaDB (${config.users} users, ${config.documents} documents)`,
  );
  await loadData(config, plan, true);
  const dbPid = pidOf('mariadbd') ?? pidOf('mysqld');
  const one = new HaproxyProcess();
  const two = new HaproxyProcess();
  stoppers.add(() => one.stop()).add(() => two.stop());
  const instances: ServerHandle[] = [];
  try {
    instances.push(await startInstance('instance1', mysqlUrl(config)));
    instances.push(await startInstance('instance2', mysqlUrl(config)));
    const address = (server: ServerHandle) => server.url.replace('http://', '');
    await one.start([address(instances[0])], []);
    await two.start(instances.map(address), []);
    await throughProxy(one.url, tokens[1]);
    await throughProxy(two.url, tokens[1]);
    // Both instances answer through `two` before measuring (HAProxy's slowstart ramps a new server up).
    await sleep(6000);
    const pids = (proxy: HaproxyProcess, count: number) =>
      [...instances.slice(0, count).map((s) => s.pid), proxy.pid].filter((pid) => pid !== undefined);
    const dbPids = dbPid === undefined ? [] : [dbPid];
    const results: Comparison[] = [];
    for (const scenario of scenarios) {
      results.push(
        await compare(
          scenario,
          { name: '1 instance', url: one.url, pids: pids(one, 1), dbPids },
          { name: '2 instances', url: two.url, pids: pids(two, 2), dbPids },
        ),
      );
    }
    return results;
  } finally {
    for (const server of instances) await server.stop();
    await one.stop();
    await two.stop();
  }
}

async function galeraPart(plan: DataPlan, scenario: Scenario): Promise<Comparison> {
  log('Part 2: document update, single MariaDB vs Galera (3 nodes, one writer)');
  const cluster = new GaleraCluster(3);
  const proxy = new HaproxyProcess();
  stoppers.add(() => proxy.stop()).add(() => cluster.destroy());
  const servers: ServerHandle[] = [];
  try {
    await cluster.start();
    const onGalera = { ...config, mysqlPort: cluster.sqlPort(0) };
    await loadData(onGalera, plan, false);
    // BENCH_GALERA_PROXY=1: through HAProxy's single-writer frontend. Off by default: on this shared
    // machine (load 40+) its external Galera check overran `timeout check`, all nodes went down and
    // HAProxy closed the instance's connections. Direct to galera1 is the same single writer.
    let writer = `127.0.0.1:${cluster.sqlPort(0)}`;
    if (process.env.BENCH_GALERA_PROXY === '1') {
      await proxy.choosePorts();
      await proxy.start(
        [],
        [0, 1, 2].map((node) => `127.0.0.1:${cluster.sqlPort(node)}`),
      );
      for (let attempt = 0; !(await cluster.reachable(proxy.galeraPort)); attempt++) {
        if (attempt > 300) throw new Error('HAProxy never sent a connection through to a Galera node');
        await sleep(100);
      }
      writer = `127.0.0.1:${proxy.galeraPort}`;
    }
    const single = await startInstance('single', mysqlUrl(config));
    servers.push(single);
    const galera = await startInstance('galera', `mysql://root@${writer}/${config.mysqlDatabase}`);
    servers.push(galera);
    const dbPid = pidOf('mariadbd') ?? pidOf('mysqld');
    return await compare(
      scenario,
      { name: 'single MariaDB', url: single.url, pids: [single.pid], dbPids: dbPid === undefined ? [] : [dbPid] },
      {
        name: 'Galera single writer',
        url: galera.url,
        pids: [galera.pid, ...(proxy.pid === undefined ? [] : [proxy.pid])],
        dbPids: cluster.pids(),
      },
    );
  } finally {
    for (const server of servers) await server.stop();
    await proxy.stop();
    await cluster.destroy();
  }
}

function summarize(comparison: Comparison) {
  const pick = (runs: Run[], key: keyof Run) => median(runs.map((run) => run[key]));
  const ratios = comparison.runsA.map((a, i) => comparison.runsB[i].rps / a.rps);
  return {
    scenario: comparison.scenario,
    a: comparison.a,
    b: comparison.b,
    rpsA: pick(comparison.runsA, 'rps'),
    rpsB: pick(comparison.runsB, 'rps'),
    perCoreA: pick(comparison.runsA, 'perCore'),
    perCoreB: pick(comparison.runsB, 'perCore'),
    dbMsA: pick(comparison.runsA, 'dbMs'),
    dbMsB: pick(comparison.runsB, 'dbMs'),
    p99A: pick(comparison.runsA, 'p99'),
    p99B: pick(comparison.runsB, 'p99'),
    ratio: median(ratios),
    failed: [...comparison.runsA, ...comparison.runsB].reduce((sum, run) => sum + run.failed, 0),
  };
}

async function main(): Promise<void> {
  if (!haproxyAvailable()) throw new Error('HAProxy (/usr/sbin/haproxy) is needed: apt-get install haproxy');
  const loadStart = loadavg().map((v) => v.toFixed(1));
  const plan = makePlan(config, await hashBenchPassword(config));
  const tokens = signTokens(config, plan);
  const scenarios = buildScenarios(config, plan, tokens).filter((s) => ['list-typical', 'update'].includes(s.name));
  const comparisons: Comparison[] = [];
  try {
    if (process.env.BENCH_INSTANCES !== '0') comparisons.push(...(await instancesPart(plan, tokens, scenarios)));
    if (process.env.BENCH_GALERA !== '0' && galeraAvailable()) {
      // Part 2's single-MariaDB instance needs the local data too.
      if (process.env.BENCH_INSTANCES === '0') await loadData(config, plan, false);
      comparisons.push(
        await galeraPart(
          plan,
          scenarios.find((s) => s.name === 'update')!,
        ),
      );
    } else {
      log('Part 2 skipped: BENCH_GALERA=0 or no galera-4/rsync installed');
    }
  } finally {
    if (!config.keep) await dropMysql(config);
  }
  const summaries = comparisons.map(summarize);
  const loadEnd = loadavg().map((v) => v.toFixed(1));
  const lines = [
    '# Scale-out bench (`npm run bench:scale`)',
    '',
    `${new Date().toISOString()}, ${availableParallelism()} cores, load average at start ${loadStart.join(' ')}, ` +
      `at end ${loadEnd.join(' ')}. ${config.users} users, ${config.documents} documents, ` +
      `${config.notifications} notifications; ${config.connections} connections, ${config.repeats} alternating ` +
      `rounds of ${config.duration} s (medians). "per CPU-s": answered requests per CPU-second of the ` +
      'instances and HAProxy; "DB ms": database servers\' CPU per request (the local MariaDB is shared ' +
      'with other users of the machine, the Galera nodes are private).',
    '',
    '| Scenario | A | B | A req/s | B req/s | B/A req/s | A per CPU-s | B per CPU-s | A DB ms | B DB ms | A p99 ms | B p99 ms | failed |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...summaries.map(
      (s) =>
        `| ${s.scenario} | ${s.a} | ${s.b} | ${fmt(s.rpsA, 0)} | ${fmt(s.rpsB, 0)} | ${s.ratio.toFixed(2)} | ` +
        `${fmt(s.perCoreA, 0)} | ${fmt(s.perCoreB, 0)} | ${fmt(s.dbMsA, 1)} | ${fmt(s.dbMsB, 1)} | ` +
        `${fmt(s.p99A, 1)} | ${fmt(s.p99B, 1)} | ${s.failed} |`,
    ),
    '',
  ];
  writeFileSync(join(root, 'bench/results/scale.md'), lines.join('\n'));
  console.log(lines.join('\n'));
  console.log(JSON.stringify({ scale: summaries, comparisons }));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    void Promise.allSettled([...stoppers].map((stop) => stop())).finally(() => process.exit(1));
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    killAllChildren();
    process.exit(1);
  },
);
