import type { BenchConfig } from './config.js';
import { documentMarkdown, documentRows, documentTargets, type DocumentResults } from './documents/doc-report.js';
import { keysetProblem, type ExplainEntry } from './explain.js';
import { inboxTargets, type InboxResults } from './inbox/inbox-results.js';
import type { LoadTimes } from './load-mysql.js';
import type { LoadResult } from './load-types.js';
import type { Measurement } from './loadrun.js';
import type { MicroResults } from './micro.js';
import type { ScenarioResult } from './scenarios.js';
import { fmt, fmtRatio } from './util.js';

export interface ServerStart {
  startupMs: number;
  firstListMs: number;
  idleRssMb: number;
  idleHeapMb: number;
}

export interface FloodResult {
  idle: Measurement;
  flood: Measurement;
  login: LoadResult;
  p99Ratio: number;
}

export interface QueryCount {
  kind: string;
  /** The request's own statements (the dispatcher's background work excluded, see QueryProxy.isDeliveryWork). */
  service: number[];
  baseline: number[];
  /** The dispatcher's statements in the same window (the service delivers what the request's outbox row announces). */
  serviceDelivery?: number[];
  serviceSql: string[];
  baselineSql: string[];
}

export interface DatabaseResults {
  database: 'mysql' | 'sqlite';
  load: LoadTimes;
  loadSeconds: number;
  countsCheck?: string;
  sizes?: Record<string, { rows: number; dataMb: number; indexMb: number }>;
  servers: Partial<Record<'service' | 'serviceB' | 'baseline', ServerStart>>;
  scenarios: ScenarioResult[];
  growth?: {
    stage1Rows: number;
    fullRows: number;
    stage1: ScenarioResult;
    full?: ScenarioResult;
    p50Ratio: number;
    rpsRatio: number;
  };
  flood?: { service?: FloodResult; baseline?: FloodResult };
  queryCounts?: QueryCount[];
  explain: ExplainEntry[];
  cursor?: { supported: boolean; detail: string };
}

export interface Target {
  id: string;
  description: string;
  measured: string;
  met: boolean | null;
}

export interface BenchResults {
  date: string;
  machine: Record<string, unknown>;
  config: Omit<BenchConfig, 'password' | 'jwtSecret'>;
  micro?: MicroResults;
  mysql?: DatabaseResults;
  sqlite?: DatabaseResults;
  inbox?: InboxResults;
  /** The documents phases (bench/documents, issue 11). */
  documents?: DocumentResults;
  targets: Target[];
  notes: string[];
}

const find = (db: DatabaseResults | undefined, name: string) => db?.scenarios.find((s) => s.name === name);

export function evaluateTargets(results: BenchResults): Target[] {
  const targets: Target[] = [];
  const my = results.mysql;
  const add = (id: string, description: string, value: number, ok: (v: number) => boolean, shown: string) =>
    targets.push({ id, description, measured: shown, met: Number.isFinite(value) ? ok(value) : null });

  const typical = find(my, 'list-typical');
  add(
    'list-throughput',
    'Notification list (typical users) req/s >= 0.8 x baseline',
    typical?.rpsRatio ?? NaN,
    (v) => v >= 0.8,
    `${fmtRatio(typical?.rpsRatio ?? NaN)} (${fmt(typical?.service.rps ?? NaN)} vs ${fmt(typical?.baseline?.rps ?? NaN)} req/s)`,
  );
  add(
    'list-p99',
    'Notification list p99 <= 1.3 x baseline p99',
    typical?.p99Ratio ?? NaN,
    (v) => v <= 1.3,
    `${fmtRatio(typical?.p99Ratio ?? NaN)} (${fmt(typical?.service.p99 ?? NaN, 2)} vs ${fmt(typical?.baseline?.p99 ?? NaN, 2)} ms)`,
  );
  // Issue 14: Node + MariaDB CPU per request (MariaDB's is the whole server's, shared: indicative).
  const totalCpuRatio = (scenario: ReturnType<typeof find>) =>
    scenario?.baseline
      ? (scenario.service.cpuPerRequestUs + scenario.service.dbCpuPerRequestUs) /
        (scenario.baseline.cpuPerRequestUs + scenario.baseline.dbCpuPerRequestUs)
      : NaN;
  const cpuShown = (scenario: ReturnType<typeof find>) =>
    `${fmtRatio(totalCpuRatio(scenario))} (Node ${fmt(scenario?.service.cpuPerRequestUs ?? NaN, 0)} + DB ${fmt(scenario?.service.dbCpuPerRequestUs ?? NaN, 0)} vs ` +
    `${fmt(scenario?.baseline?.cpuPerRequestUs ?? NaN, 0)} + ${fmt(scenario?.baseline?.dbCpuPerRequestUs ?? NaN, 0)} µs)`;
  add(
    'list-cpu',
    'Notification list Node + MariaDB CPU per request <= 1.25 x baseline',
    totalCpuRatio(typical),
    (v) => v <= 1.25,
    cpuShown(typical),
  );
  const jwtUs = results.micro?.jwtVerifyKeyObjectUs ?? NaN;
  add(
    'jwt-verify',
    'JWT verify (KeyObject) <= 50 µs',
    jwtUs,
    (v) => v <= 50,
    `${fmt(jwtUs, 1)} µs (string secret ${fmt(results.micro?.jwtVerifyStringUs ?? NaN, 1)} µs)`,
  );
  for (const name of ['list-heavy', 'list-heavy-status', 'list-heavy-type', 'list-heavy-unread']) {
    const heavy = find(my, name);
    const ratio = (typical?.service.rps ?? NaN) / (heavy?.service.rps ?? NaN);
    add(
      `heavy:${name}`,
      `Heavy user ${name.replace('list-heavy', 'page 1').replace('-', ' ')} costs <= 2 x typical page 1`,
      ratio,
      (v) => v <= 2,
      `${fmtRatio(ratio)} x (${fmt(heavy?.service.rps ?? NaN)} vs ${fmt(typical?.service.rps ?? NaN)} req/s)`,
    );
  }
  const heavy = find(my, 'list-heavy');
  const deep = find(my, 'list-heavy-deep');
  const deepRatio = (deep?.service.rps ?? NaN) / (heavy?.service.rps ?? NaN);
  add(
    'deep-page',
    `Deep page (${results.config.deepPage}) >= 0.2 x page 1 throughput (heavy user; OFFSET over index entries in the deferred join, no cache: deep walks are the cursor's job)`,
    deepRatio,
    (v) => v >= 0.2,
    `${fmtRatio(deepRatio)} (${fmt(deep?.service.rps ?? NaN)} vs ${fmt(heavy?.service.rps ?? NaN)} req/s)`,
  );
  const cursor = find(my, 'list-heavy-cursor');
  if (cursor) {
    const ratio = cursor.service.rps / (heavy?.service.rps ?? NaN);
    add(
      'cursor',
      'Cursor walk at depth >= 0.9 x page 1 throughput',
      ratio,
      (v) => v >= 0.9,
      `${fmtRatio(ratio)} (${fmt(cursor.service.rps)} vs ${fmt(heavy?.service.rps ?? NaN)} req/s)`,
    );
  } else {
    targets.push({
      id: 'cursor',
      description: 'Cursor walk at depth >= 0.9 x page 1 throughput',
      measured: my?.cursor ? my.cursor.detail : 'not measured',
      met: my?.cursor && !my.cursor.supported ? false : null,
    });
  }
  const growth = my?.growth;
  add(
    'growth',
    `Page-1 p50 latency ${growth?.fullRows ?? '?'} rows / ${growth?.stage1Rows ?? '?'} rows <= 1.2`,
    growth?.p50Ratio ?? NaN,
    (v) => v <= 1.2,
    growth
      ? `${fmtRatio(growth.p50Ratio)} (req/s ratio ${fmtRatio(growth.rpsRatio)}; control: the baseline ` +
          `${fmtRatio((growth.full?.baseline?.p50 ?? NaN) / (growth.stage1.baseline?.p50 ?? NaN))})`
      : 'not measured',
  );
  for (const db of [results.mysql, results.sqlite]) {
    if (!db || db.explain.length === 0) continue;
    // Re-checked here so that BENCH_REPORT_ONLY applies the current rules to stored plans.
    for (const entry of db.explain) {
      const keyset = keysetProblem(entry);
      if (keyset && !entry.flags.includes(keyset)) {
        entry.flags.push(keyset);
        entry.fails = true;
      }
    }
    const failing = db.explain.filter((e) => e.fails);
    targets.push({
      id: `explain-${db.database}`,
      description: `${db.database === 'mysql' ? 'MariaDB' : 'SQLite'}: no notification-list query shape scans or sorts beyond the page`,
      measured: failing.length
        ? failing.map((e) => `${e.shape}: ${e.flags.join(', ')}`).join('; ')
        : `${db.explain.length} shapes checked, none scans`,
      met: failing.length === 0,
    });
  }
  const login = find(my, 'login');
  // "Raw" = the baseline's login route under the same load on the same cores (argon2id verify + sign,
  // no concurrency bound, same SQL); the in-process micro-benchmark (no HTTP, no database, no load
  // generator on the cores) is printed beside it.
  add(
    'login',
    'Login req/s >= 0.9 x raw verify + sign throughput (baseline login route, same cores, same run)',
    login?.rpsRatio ?? NaN,
    (v) => v >= 0.9,
    `${fmtRatio(login?.rpsRatio ?? NaN)} (${fmt(login?.service.rps ?? NaN)} vs ${fmt(login?.baseline?.rps ?? NaN)} req/s; in-process verify+sign without HTTP/DB/load generator ${fmt(results.micro?.rawLoginPerSecond ?? NaN)}/s)`,
  );
  const flood = my?.flood?.service;
  add(
    'flood-lag',
    'Event-loop lag p99 <= 10 ms during a login flood',
    flood?.flood.lag.p99 ?? NaN,
    (v) => v <= 10,
    flood ? `${fmt(flood.flood.lag.p99, 1)} ms (idle ${fmt(flood.idle.lag.p99, 1)} ms)` : 'not measured',
  );
  add(
    'flood-p99',
    'Notification p99 during a login flood <= 3 x idle',
    flood?.p99Ratio ?? NaN,
    (v) => v <= 3,
    flood
      ? `${fmtRatio(flood.p99Ratio)} (${fmt(flood.flood.load.latency.p99, 1)} vs ${fmt(flood.idle.load.latency.p99, 1)} ms)`
      : 'not measured',
  );
  const update = find(my, 'update');
  add(
    'update',
    'Document update req/s >= 0.8 x baseline',
    update?.rpsRatio ?? NaN,
    (v) => v >= 0.8,
    `${fmtRatio(update?.rpsRatio ?? NaN)} (${fmt(update?.service.rps ?? NaN)} vs ${fmt(update?.baseline?.rps ?? NaN)} req/s)`,
  );
  add(
    'update-p99',
    'Document update p99 <= 1.3 x baseline p99',
    update?.p99Ratio ?? NaN,
    (v) => v <= 1.3,
    `${fmtRatio(update?.p99Ratio ?? NaN)} (${fmt(update?.service.p99 ?? NaN, 2)} vs ${fmt(update?.baseline?.p99 ?? NaN, 2)} ms)`,
  );
  add(
    'update-cpu',
    'Document update Node + MariaDB CPU per request <= 1.25 x baseline',
    totalCpuRatio(update),
    (v) => v <= 1.25,
    cpuShown(update),
  );
  for (const name of ['list-typical', 'update']) {
    const scenario = find(results.sqlite, name);
    add(
      `sqlite-${name}`,
      `SQLite ${name} req/s >= 0.7 x the better-sqlite3 baseline`,
      scenario?.rpsRatio ?? NaN,
      (v) => v >= 0.7,
      `${fmtRatio(scenario?.rpsRatio ?? NaN)} (${fmt(scenario?.service.rps ?? NaN)} vs ${fmt(scenario?.baseline?.rps ?? NaN)} req/s)`,
    );
  }
  const peaks = [results.mysql, results.sqlite].flatMap((db) => db?.scenarios.map((s) => s.service.peakRssMb) ?? []);
  const floodPeaks = [my?.flood?.service?.flood.peakRssMb ?? 0];
  const peak = peaks.length ? Math.max(...peaks, ...floodPeaks) : NaN;
  const idle = my?.servers.service?.idleRssMb;
  add(
    'memory',
    'Service peak RSS <= 200 MB in every scenario',
    peak,
    (v) => v <= 200,
    `max ${fmt(peak, 0)} MB (idle after start ${fmt(idle ?? NaN, 0)} MB, start-up ${fmt(my?.servers.service?.startupMs ?? NaN, 0)} ms)`,
  );
  const counts = my?.queryCounts;
  if (counts?.length) {
    const problems: string[] = [];
    for (const count of counts) {
      const distinct = new Set(count.service);
      if (distinct.size > 1) problems.push(`${count.kind}: varies ${[...distinct].join('/')}`);
      const max = Math.max(...count.service);
      const base = Math.max(...count.baseline);
      if (max > base) problems.push(`${count.kind}: ${max} > baseline ${base}`);
    }
    targets.push({
      id: 'query-counts',
      description:
        "Login, list and update issue a fixed, small number of queries (<= the baseline, no N+1; the notification dispatcher's background statements counted apart)",
      measured:
        counts.map((c) => `${c.kind} ${Math.max(...c.service)} (baseline ${Math.max(...c.baseline)})`).join('; ') +
        (problems.length ? ` — ${problems.join('; ')}` : ''),
      met: problems.length === 0,
    });
  } else {
    targets.push({
      id: 'query-counts',
      description: 'Fixed, small number of queries per request',
      measured: 'not measured',
      met: null,
    });
  }
  targets.push(...inboxTargets(results.inbox));
  targets.push(...documentTargets(results.documents));
  targets.push(...abTargets(results));
  return targets;
}

/** A/B (BENCH_SERVICE_B_MAIN): no scenario may lose more than 15 % req/s against serviceB (the previous build). */
function abTargets(results: BenchResults): Target[] {
  const all = [
    ...(results.mysql?.scenarios ?? []),
    ...(results.sqlite?.scenarios ?? []),
    ...Object.values(results.documents ?? {}).flatMap((db) => db?.scenarios ?? []),
  ].filter((s) => s.serviceB);
  if (all.length === 0) return [];
  const losing = all.filter((s) => !((s.abRpsRatio ?? NaN) >= 0.85));
  return [
    {
      id: 'ab-throughput',
      description: 'A/B: every scenario req/s >= 0.85 x serviceB (BENCH_SERVICE_B_MAIN, the previous build)',
      measured:
        `${all.length} scenarios, ${losing.length} below: ` +
        (losing.length ? losing : all)
          .map((s) => `${s.database} ${s.name} ${fmtRatio(s.abRpsRatio ?? NaN)}`)
          .join(', '),
      met: losing.length === 0,
    },
  ];
}

const HEADER = [
  'Scenario',
  'DB',
  'Service req/s [range]',
  'Baseline req/s [range]',
  'Ratio',
  'p50 ms',
  'p99 ms',
  'Base p99',
  'p99 ratio',
  'CPU µs/req',
  'CPU ratio',
  'Peak RSS MB',
  'Lag p99 ms',
];
/** Columns added when a serviceB was measured. */
const HEADER_B = ['ServiceB req/s', 'B ratio', 'A/B ratio', 'A/B p99'];

const withB = (results: BenchResults) =>
  [results.mysql, results.sqlite].some((db) => db?.scenarios.some((s) => s.serviceB));
const header = (results: BenchResults) => (withB(results) ? [...HEADER, ...HEADER_B] : HEADER);

function rows(results: BenchResults): string[][] {
  const out: string[][] = [];
  for (const db of [results.mysql, results.sqlite]) {
    for (const s of db?.scenarios ?? []) {
      const base = s.baseline;
      out.push([
        s.name,
        s.database,
        `${fmt(s.service.rps)} [${fmt(s.service.rpsRange[0])}-${fmt(s.service.rpsRange[1])}]`,
        base ? `${fmt(base.rps)} [${fmt(base.rpsRange[0])}-${fmt(base.rpsRange[1])}]` : '-',
        fmtRatio(s.rpsRatio),
        fmt(s.service.p50, 2),
        fmt(s.service.p99, 2),
        base ? fmt(base.p99, 2) : '-',
        fmtRatio(s.p99Ratio),
        `${fmt(s.service.cpuPerRequestUs, 0)} / ${base ? fmt(base.cpuPerRequestUs, 0) : '-'}`,
        fmtRatio(s.cpuRatio),
        `${fmt(s.service.peakRssMb, 0)} / ${base ? fmt(base.peakRssMb, 0) : '-'}`,
        fmt(s.service.lagP99, 1),
        ...(withB(results)
          ? [
              s.serviceB ? fmt(s.serviceB.rps) : '-',
              fmtRatio(s.bRpsRatio ?? NaN),
              fmtRatio(s.abRpsRatio ?? NaN),
              fmtRatio(s.abP99Ratio ?? NaN),
            ]
          : []),
      ]);
      if (s.service.failures || (base?.failures ?? 0)) {
        out[out.length - 1][0] += ` (!${s.service.failures}/${base?.failures ?? 0} failed)`;
      }
    }
  }
  out.push(...documentRows(results.documents));
  return out;
}

export function textTable(results: BenchResults): string {
  const body = rows(results);
  const columns = header(results);
  const widths = columns.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  const lines = [line(columns), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)];
  lines.push('');
  lines.push('Targets (MariaDB unless named; ratios are medians of back-to-back service/baseline pairs):');
  for (const t of results.targets) {
    const mark = t.met === null ? 'NOT MEASURED' : t.met ? 'MET' : 'NOT MET';
    lines.push(`  [${mark.padEnd(12)}] ${t.description}: ${t.measured}`);
  }
  return lines.join('\n');
}

function mdRow(cells: string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
}

export function markdown(results: BenchResults): string {
  const m = results.machine;
  const out: string[] = [];
  out.push('# Benchmark results');
  out.push('');
  out.push(`Date: ${results.date}  `);
  out.push(
    `Machine: ${m.cpuModel} x ${m.cores} cores, ${m.memoryGb} GB RAM, load average at start ${m.loadAtStart}, at end ${m.loadAtEnd}  `,
  );
  out.push(`Node ${m.node}, MariaDB ${m.mariadb}, SQLite ${m.sqlite}; git ${m.git}  `);
  out.push(
    `Service and baseline started with the Node options of start:prod: node ${typeof m.serviceNodeFlags === 'string' ? m.serviceNodeFlags : '(none)'} dist/src/main.js  `,
  );
  out.push(
    `Packages: ${Object.entries(m.packages as Record<string, string>)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}  `,
  );
  const c = results.config;
  out.push(
    `Data: ${c.users} users, ${c.documents} documents, ${c.notifications} notifications (heavy user ${c.heavy}); ` +
      `${c.duration} s runs after ${c.warmup} s warm-up, ${c.repeats} A/B pairs, ${c.connections} connections (login ${c.loginConnections}).`,
  );
  out.push('');
  out.push(
    'The machine is shared and noisy: judge the ratios (service / baseline measured back to back), not absolute numbers.',
  );
  out.push('');
  out.push(mdRow(header(results)));
  out.push(mdRow(header(results).map(() => '---')));
  for (const row of rows(results)) out.push(mdRow(row));
  out.push('');
  out.push(
    'CPU µs/req and Peak RSS are "service / baseline". Lag is the service\'s event-loop delay p99 during the run. ' +
      'With BENCH_SERVICE_B_MAIN: B ratio = serviceB / baseline, A/B = service / serviceB.',
  );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(mdRow(['Target', 'Measured', 'Result']));
  out.push(mdRow(['---', '---', '---']));
  for (const t of results.targets) {
    out.push(mdRow([t.description, t.measured, t.met === null ? 'not measured' : t.met ? '**met**' : '**not met**']));
  }
  out.push('');
  if (results.micro) {
    const micro = results.micro;
    out.push('## Micro-benchmarks');
    out.push('');
    out.push(
      `- jsonwebtoken HS256 verify: KeyObject ${fmt(micro.jwtVerifyKeyObjectUs, 1)} µs, string secret ${fmt(micro.jwtVerifyStringUs, 1)} µs, Buffer secret ${fmt(micro.jwtVerifyBufferUs, 1)} µs; sign ${fmt(micro.jwtSignKeyObjectUs, 1)} µs`,
    );
    out.push(
      `- argon2id verify ${fmt(micro.argon2SingleMs, 1)} ms; raw verify+sign per second by concurrency: ${Object.entries(
        micro.rawLoginByConcurrency,
      )
        .map(([k, v]) => `${k}: ${fmt(v)}`)
        .join(', ')}`,
    );
    out.push('');
  }
  for (const db of [results.mysql, results.sqlite]) {
    if (!db) continue;
    out.push(`## ${db.database === 'mysql' ? 'MariaDB' : 'SQLite'}`);
    out.push('');
    out.push(
      `Load: ${Object.entries(db.load)
        .map(([k, v]) => `${k} ${v.rows} rows in ${v.seconds.toFixed(1)} s (${Math.round(v.rowsPerSecond)}/s)`)
        .join('; ')}; total ${db.loadSeconds.toFixed(0)} s.${db.countsCheck ? ` ${db.countsCheck}.` : ''}`,
    );
    out.push('');
    for (const [role, start] of Object.entries(db.servers)) {
      if (start)
        out.push(
          `- ${role}: start-up to first answered request ${fmt(start.startupMs, 0)} ms, first list answered at ${fmt(start.firstListMs, 0)} ms, idle RSS ${fmt(start.idleRssMb, 0)} MB (V8 heap used ${fmt(start.idleHeapMb, 0)} MB)`,
        );
    }
    if (db.growth) {
      const g = db.growth;
      out.push(
        `- Growth: typical page 1 at ${g.stage1Rows} rows: service ${fmt(g.stage1.service.rps)} req/s, p50 ${fmt(g.stage1.service.p50, 2)} ms, ` +
          `CPU ${fmt(g.stage1.service.cpuPerRequestUs, 0)} µs/req (baseline ${fmt(g.stage1.baseline?.rps ?? NaN)} req/s, p50 ${fmt(g.stage1.baseline?.p50 ?? NaN, 2)} ms); ` +
          `at ${g.fullRows} rows: service ${fmt(g.full?.service.rps ?? NaN)} req/s, p50 ${fmt(g.full?.service.p50 ?? NaN, 2)} ms, CPU ${fmt(g.full?.service.cpuPerRequestUs ?? NaN, 0)} µs/req ` +
          `(baseline ${fmt(g.full?.baseline?.rps ?? NaN)} req/s, p50 ${fmt(g.full?.baseline?.p50 ?? NaN, 2)} ms). Service p50 ratio ${fmtRatio(g.p50Ratio)}, ` +
          `baseline p50 ratio ${fmtRatio((g.full?.baseline?.p50 ?? NaN) / (g.stage1.baseline?.p50 ?? NaN))} (the database side).`,
      );
    }
    for (const [role, flood] of Object.entries(db.flood ?? {})) {
      if (!flood) continue;
      out.push(
        `- Login flood (${role}): list at fixed rate p99 ${fmt(flood.idle.load.latency.p99, 1)} ms idle -> ${fmt(flood.flood.load.latency.p99, 1)} ms during the flood (x${fmtRatio(flood.p99Ratio)}); event-loop lag p99 ${fmt(flood.idle.lag.p99, 1)} -> ${fmt(flood.flood.lag.p99, 1)} ms; logins during the flood ${fmt(flood.login.rps)}/s.`,
      );
    }
    if (db.cursor) out.push(`- Cursor: ${db.cursor.detail}`);
    for (const s of db.scenarios) {
      out.push(
        `- ${s.name}: ${s.title}; response check against the baseline: ${s.shapeCheck ?? 'n/a'}; DB CPU ${fmt(s.service.dbCpuPerRequestUs, 0)} / ${fmt(s.baseline?.dbCpuPerRequestUs ?? NaN, 0)} µs/req (service / baseline, MariaDB process, shared)`,
      );
    }
    out.push('');
    if (db.queryCounts?.length) {
      out.push('### Queries per request (counted by a MySQL-protocol proxy)');
      out.push('');
      for (const q of db.queryCounts) {
        const delivery = q.serviceDelivery?.some((n) => n > 0)
          ? ` (and the dispatcher's ${q.serviceDelivery.join(', ')})`
          : '';
        out.push(`- **${q.kind}**: service ${q.service.join(', ')}${delivery}; baseline ${q.baseline.join(', ')}`);
        for (const sql of q.serviceSql) out.push(`  - service: \`${sql.slice(0, 300).replace(/`/g, "'")}\``);
      }
      out.push('');
    }
    if (db.explain.length) {
      out.push('### Query plans');
      out.push('');
      for (const e of db.explain) {
        out.push(`- **${e.shape}**${e.fails ? ' — FAILS' : ''}${e.flags.length ? ` (${e.flags.join('; ')})` : ''}`);
        out.push(`  - \`${e.sql.slice(0, 400).replace(/`/g, "'")}\``);
        for (const p of e.plan) out.push(`  - ${p}`);
      }
      out.push('');
    }
  }
  out.push(...documentMarkdown(results.documents));
  if (results.notes.length) {
    out.push('## Notes');
    out.push('');
    for (const note of results.notes) out.push(`- ${note}`);
    out.push('');
  }
  out.push('## How to read this');
  out.push('');
  out.push(
    '- See bench/README.md. Each scenario alternates service, serviceB (if any) and the baseline (its own cheapest-correct SQL, same JSON); ratios are medians of the per-round ratios, ranges the spread over the rounds.',
  );
  out.push('');
  return out.join('\n');
}
