// Issue 33's measurements (see bench/README.md, "Attention"): fan-out of one document event to a
// project of 5,000 members, webhook deliveries to a local receiver with the API's p99 beside them,
// and what 10,000 alerting saved searches add to a document write. MariaDB and SQLite, own data.
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { SMTPServer } from 'smtp-server';
import type { BenchConfig } from '../config.js';
import { documentId, documentOwner, documentUpdatable, type DataPlan } from '../datagen.js';
import { measure, type Measurement } from '../loadrun.js';
import { UPDATE_BODY, describeRun, signTokens } from '../scenarios.js';
import { startServer, type ServerHandle } from '../servers.js';
import { cpuSeconds, fmt, freePort, httpJson, log, median, sleep } from '../util.js';
import {
  ATTENTION_PROJECT,
  DELIVERY_COLUMNS,
  SAVED_SEARCH_COLUMNS,
  WARM_PROJECT,
  attentionConfig,
  databaseUrl,
  deliveryRows,
  loadAttentionData,
  managerIndex,
  openBenchDb,
  placeholders,
  savedSearchRows,
  type BenchDb,
  type Kind,
} from './attention-data.js';
import type { AttentionDbResults, FanoutResult, SavedSearchResult, WebhookResult } from './attention-report.js';
import { attentionSelected, type AttentionSettings } from './attention-settings.js';

export interface AttentionContext {
  config: BenchConfig;
  settings: AttentionSettings;
  paths: { root: string; serviceMain: string; worker: string; probe: string };
  serviceEnv(databaseUrl: string, port: number): Record<string, string>;
  nodeFlags: string[];
  passwordHash: string;
  dbPid?: number;
}

interface Run {
  kind: Kind;
  config: BenchConfig;
  plan: DataPlan;
  tokens: string[];
  db: BenchDb;
  service: ServerHandle;
  typeId: string;
  /** The project's manager: uploads and owns the webhook. */
  manager: number;
  /** MariaDB's process (its CPU is counted beside the service's); none on SQLite. */
  dbPid?: number;
}

const load = () =>
  loadavg()
    .map((v) => v.toFixed(1))
    .join(' ');

export async function runAttention(context: AttentionContext, kind: Kind): Promise<AttentionDbResults> {
  const { settings, paths } = context;
  const config = attentionConfig(context.config, settings);
  const t0 = performance.now();
  log(`[${kind}] attention: loading ${config.users} users, ${settings.members} members, ${settings.watchers} watchers`);
  const plan = await loadAttentionData(kind, config, settings, context.passwordHash);
  const results: AttentionDbResults = {
    database: kind,
    loadSeconds: (performance.now() - t0) / 1000,
    loadAverage: { start: load(), end: '' },
  };
  log(`[${kind}] attention: data loaded in ${fmt(results.loadSeconds, 0)} s`);
  const smtp = await smtpSink();
  const receiver = await webhookReceiver();
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    script: paths.serviceMain,
    cwd: paths.root,
    port,
    env: {
      ...context.serviceEnv(databaseUrl(kind, config), port),
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      STORAGE_DIR: join(paths.root, `attention-files-${kind}`),
    },
    probePath: paths.probe,
    // BENCH_ATTENTION_PROFILE_DIR: a V8 CPU profile of the service, written when it stops.
    nodeFlags: process.env.BENCH_ATTENTION_PROFILE_DIR
      ? [...context.nodeFlags, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_ATTENTION_PROFILE_DIR}`]
      : context.nodeFlags,
  });
  const db = await openBenchDb(kind, config);
  try {
    const [type] = await db.all<{ id: string }>('SELECT id FROM document_types ORDER BY name LIMIT 1');
    const run: Run = {
      kind,
      config,
      plan,
      tokens: signTokens(config, plan),
      db,
      service,
      typeId: type.id,
      manager: managerIndex(settings),
      dbPid: kind === 'mysql' ? context.dbPid : undefined,
    };
    if (attentionSelected(context.config, 'attention-fanout')) results.fanout = await fanout(run, settings);
    if (attentionSelected(context.config, 'attention-webhooks')) {
      results.webhooks = await webhooks(run, context, receiver);
    }
    if (attentionSelected(context.config, 'attention-saved-searches')) {
      results.savedSearches = await savedSearches(run, context);
    }
  } finally {
    await db.close();
    await service.stop();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await smtp.close();
  }
  results.loadAverage.end = load();
  return results;
}

async function smtpSink(): Promise<{ port: number; close(): Promise<void> }> {
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(data, _session, callback) {
      data.on('data', () => undefined);
      data.on('end', () => callback());
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
  return { port, close: () => new Promise<void>((resolve) => sink.close(() => resolve())) };
}

/** The local receiver: reads each POST whole and answers 204, counting them. */
async function webhookReceiver(): Promise<{ server: Server; url: string; received: () => number }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}/hook`, received: () => received };
}

async function upload(run: Run, projectId: string, n: number): Promise<string> {
  const form = new FormData();
  form.append('projectId', projectId);
  form.append('documentTypeId', run.typeId);
  form.append('file', new Blob([`Attention document ${n}\n`], { type: 'text/plain' }), `attention-${n}.txt`);
  const response = await fetch(`${run.service.url}/api/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.tokens[run.manager]}` },
    body: form,
  });
  const body = (await response.json()) as { document?: { id: string } };
  if (response.status !== 201 || !body.document) {
    throw new Error(`upload answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body.document.id;
}

/** In-app and e-mail rows made so far from the document.created events of these documents. */
async function madeFor(db: BenchDb, documents: string[]): Promise<{ inApp: number; email: number }> {
  const rows = await db.all<{ notificationType: string; n: number }>(
    `SELECT notificationType, COUNT(*) AS n FROM notifications WHERE sourceEventId IN
       (SELECT id FROM outbox_events WHERE type = 'document.created' AND documentId IN (${placeholders(documents.length)}))
     GROUP BY notificationType`,
    documents,
  );
  const count = (type: string) => Number(rows.find((row) => row.notificationType === type)?.n ?? 0);
  return { inApp: count('in_app'), email: count('email') };
}

/** Polls until every expected row exists (or 120 s passed); answers when in-app and all were complete. */
async function waitForFanout(
  db: BenchDb,
  documents: string[],
  inApp: number,
  email: number,
  t0: number,
): Promise<{ inAppSeconds: number; allSeconds: number; made: { inApp: number; email: number } }> {
  let inAppSeconds = NaN;
  let made = { inApp: 0, email: 0 };
  while (performance.now() - t0 < 120_000) {
    made = await madeFor(db, documents);
    const at = (performance.now() - t0) / 1000;
    if (Number.isNaN(inAppSeconds) && made.inApp >= inApp) inAppSeconds = at;
    if (made.inApp >= inApp && made.email >= email) return { inAppSeconds, allSeconds: at, made };
    await sleep(20);
  }
  return { inAppSeconds, allSeconds: NaN, made };
}

/** MariaDB's CPU seconds so far (0 on SQLite, where the database works inside the service). */
const dbCpu = (run: Run) => (run.dbPid ? cpuSeconds(run.dbPid) : 0);

async function fanout(run: Run, settings: AttentionSettings): Promise<FanoutResult> {
  const { db, service, kind } = run;
  // The upload path and the dispatcher warmed once in a project with nobody else in it.
  await upload(run, WARM_PROJECT, 0);
  const expectedInApp = settings.members;
  const expectedEmail = Math.min(settings.ifUnread, settings.members);
  const singles: FanoutResult['singles'] = [];
  for (let round = 0; round < settings.fanoutRounds; round++) {
    await sleep(1000);
    const cpu0 = cpuSeconds(service.pid);
    const db0 = dbCpu(run);
    const t0 = performance.now();
    const document = await upload(run, ATTENTION_PROJECT, 1 + round);
    const uploadMs = performance.now() - t0;
    const done = await waitForFanout(db, [document], expectedInApp, expectedEmail, t0);
    const cpu = cpuSeconds(service.pid) - cpu0;
    const dbCpuSeconds = dbCpu(run) - db0;
    singles.push({ uploadMs, ...done, serviceCpuSeconds: cpu, dbCpuSeconds });
    log(
      `[${kind}] attention-fanout: 1 event -> ${done.made.inApp}/${expectedInApp} in-app in ${fmt(done.inAppSeconds, 2)} s, ` +
        `${done.made.email}/${expectedEmail} if_unread e-mails by ${fmt(done.allSeconds, 2)} s (upload ${fmt(uploadMs, 0)} ms, ` +
        `CPU: service ${fmt(cpu, 2)} s, MariaDB ${fmt(dbCpuSeconds, 2)} s; load ${load()})`,
    );
  }
  await sleep(1000);
  const events = settings.fanoutEvents;
  const cpu0 = cpuSeconds(service.pid);
  const db0 = dbCpu(run);
  const t1 = performance.now();
  const documents = await Promise.all(
    Array.from({ length: events }, (_, i) => upload(run, ATTENTION_PROJECT, 100 + i)),
  );
  const done = await waitForFanout(db, documents, expectedInApp * events, expectedEmail * events, t1);
  const rows = done.made.inApp + done.made.email;
  const perSecond = rows / done.allSeconds;
  const cpu = cpuSeconds(service.pid) - cpu0;
  const dbCpuSeconds = dbCpu(run) - db0;
  log(
    `[${kind}] attention-fanout: ${events} events at once -> ${rows} notifications in ${fmt(done.allSeconds, 2)} s ` +
      `(${fmt(perSecond, 0)}/s; in-app complete at ${fmt(done.inAppSeconds, 2)} s; CPU: service ${fmt(cpu, 2)} s, ` +
      `MariaDB ${fmt(dbCpuSeconds, 2)} s = ${fmt(rows / (cpu + dbCpuSeconds), 0)} rows per CPU second; load ${load()})`,
  );
  return {
    members: settings.members,
    watchers: settings.watchers,
    ifUnread: expectedEmail,
    singles,
    firstSeconds: median(singles.map((single) => single.inAppSeconds)),
    events,
    sustainedRows: rows,
    sustainedSeconds: done.allSeconds,
    perSecond,
    sustainedCpuSeconds: cpu,
    sustainedDbCpuSeconds: dbCpuSeconds,
    rowsPerCpuSecond: rows / (cpu + dbCpuSeconds),
  };
}

function apiJob(run: Run, rate: number, duration: number, tag: string) {
  const items: [string, number][] = [];
  for (let j = 0; j < Math.min(run.config.documents, 400); j++) {
    items.push([`/api/documents/${documentId(j)}`, documentOwner(run.plan, j)]);
  }
  return {
    url: run.service.url,
    method: 'GET' as const,
    connections: 8,
    overallRate: rate,
    tokens: run.tokens,
    items,
    duration,
    warmup: 1,
    waitForGo: true,
    tag,
  };
}

async function webhooks(
  run: Run,
  context: AttentionContext,
  receiver: { url: string; received: () => number },
): Promise<WebhookResult> {
  const { db, service, kind } = run;
  const { settings, paths } = context;
  const created = await httpJson(`${service.url}/api/webhooks`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${run.tokens[run.manager]}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ url: receiver.url, events: ['document.updated'], projectId: ATTENTION_PROJECT }),
  });
  const hookId = (created.body as { id?: string }).id;
  if (created.status !== 201 || !hookId) {
    throw new Error(`POST /api/webhooks answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`);
  }
  const duration = Math.max(run.config.duration, 10);
  const rounds: WebhookResult['rounds'] = [];
  // Not measured: the first run after the setup met a service still warming up (JIT, caches).
  await measure(service, paths.worker, apiJob(run, settings.apiRate, 10, 'attn-api-warm-up'));
  for (let round = 0; round < settings.webhookRounds; round++) {
    const idle = await measure(
      service,
      paths.worker,
      apiJob(run, settings.apiRate, duration, `attn-api-idle-${round}`),
    );
    log(`[${kind}] attention-webhooks: API idle: ${describeRun(idle)}`);
    const before = receiver.received();
    const due = Date.now();
    await db.insert(
      'webhook_deliveries',
      DELIVERY_COLUMNS,
      deliveryRows(hookId, settings.deliveries, due),
      settings.deliveries,
      `webhook deliveries (round ${round + 1})`,
    );
    const t0 = performance.now();
    const cpu0 = cpuSeconds(service.pid);
    const during: Promise<Measurement> = measure(
      service,
      paths.worker,
      apiJob(run, settings.apiRate, duration, `attn-api-drain-${round}`),
    );
    let drainSeconds = NaN;
    let delivered = 0;
    // The receiver's count tells when to look: a COUNT(*) every 100 ms would load the shared CPUs during the window.
    const succeeded = async () => {
      const [row] = await db.all<{ n: number }>(
        "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE hookId = ? AND status = 'succeeded'",
        [hookId],
      );
      return Number(row.n) - round * settings.deliveries;
    };
    while (performance.now() - t0 < 600_000) {
      if (
        receiver.received() - before >= settings.deliveries &&
        (delivered = await succeeded()) >= settings.deliveries
      ) {
        drainSeconds = (performance.now() - t0) / 1000;
        break;
      }
      await sleep(20);
    }
    if (!(drainSeconds > 0)) delivered = await succeeded();
    const cpu = cpuSeconds(service.pid) - cpu0;
    const busy = await during;
    log(`[${kind}] attention-webhooks: API during the drain: ${describeRun(busy)}`);
    const perSecond = delivered / drainSeconds;
    // The measured window (after a 1 s warm-up) lies inside the drain only if the drain lasted longer.
    const covered = drainSeconds > duration + 1;
    log(
      `[${kind}] attention-webhooks: ${delivered}/${settings.deliveries} delivered in ${fmt(drainSeconds, 1)} s ` +
        `(${fmt(perSecond, 0)}/s; receiver got ${receiver.received() - before}; service CPU ${fmt(cpu, 1)} s)` +
        (covered ? '' : '; the drain ended before the API run did'),
    );
    rounds.push({
      delivered,
      received: receiver.received() - before,
      drainSeconds,
      perSecond,
      serviceCpuSeconds: cpu,
      idleP99: idle.load.latency.p99,
      duringP99: busy.load.latency.p99,
      idleP50: idle.load.latency.p50,
      duringP50: busy.load.latency.p50,
      p99Ratio: busy.load.latency.p99 / idle.load.latency.p99,
      drainCoveredRun: covered,
    });
  }
  return {
    deliveries: settings.deliveries,
    apiRate: settings.apiRate,
    rounds,
    perSecond: median(rounds.map((r) => r.perSecond)),
    p99Ratio: median(rounds.map((r) => r.p99Ratio)),
  };
}

async function savedSearches(run: Run, context: AttentionContext): Promise<SavedSearchResult> {
  const { db, service, kind, plan } = run;
  const { settings, paths } = context;
  const projects = (await db.all<{ id: string }>('SELECT id FROM projects ORDER BY id')).map((row) => row.id);
  const types = (await db.all<{ id: string }>('SELECT id FROM document_types ORDER BY id')).map((row) => row.id);
  const items: [string, number][] = [];
  for (let j = 0; j < run.config.documents; j++) {
    if (documentUpdatable(j)) items.push([`/api/documents/${documentId(j)}`, documentOwner(plan, j)]);
  }
  const duration = Math.max(run.config.duration, 10);
  const job = (tag: string) => ({
    url: service.url,
    method: 'PUT' as const,
    connections: 4,
    overallRate: settings.writeRate,
    tokens: run.tokens,
    items,
    bodyTemplate: UPDATE_BODY,
    duration,
    warmup: 2,
    waitForGo: true,
    tag,
  });
  const setSearches = async (count: number) => {
    await db.run('DELETE FROM saved_search_matches');
    await db.run('DELETE FROM saved_searches');
    if (count > 0) {
      await db.insert(
        'saved_searches',
        SAVED_SEARCH_COLUMNS,
        savedSearchRows(count, settings.members, projects, types, Date.now()),
        count,
        'saved searches',
      );
    }
  };
  const rounds: SavedSearchResult['rounds'] = [];
  for (let round = 0; round < settings.searchRounds; round++) {
    const order = round % 2 === 0 ? [0, settings.savedSearches] : [settings.savedSearches, 0];
    const p50: Record<number, number> = {};
    const p99: Record<number, number> = {};
    let backlog = 0;
    for (const count of order) {
      await setSearches(count);
      const m = await measure(service, paths.worker, job(`attn-write-${count}-${round}`), context.dbPid);
      p50[count] = m.load.latency.p50;
      p99[count] = m.load.latency.p99;
      const [row] = await db.all<{ n: number }>(
        'SELECT COUNT(*) AS n FROM outbox_events WHERE searchesMatchedAt IS NULL',
      );
      if (count > 0) backlog = Number(row.n);
      log(`[${kind}] attention-saved-searches: ${count} searches: ${describeRun(m)}; unmatched events after ${row.n}`);
      await waitForMatcher(db);
    }
    const [matches] = await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM saved_search_matches');
    rounds.push({
      p50Without: p50[0],
      p50With: p50[settings.savedSearches],
      p99Without: p99[0],
      p99With: p99[settings.savedSearches],
      addedP50Ms: p50[settings.savedSearches] - p50[0],
      backlogAfterRun: backlog,
      matches: Number(matches.n),
    });
  }
  const added = median(rounds.map((r) => r.addedP50Ms));
  log(`[${kind}] attention-saved-searches: p50 added by ${settings.savedSearches} searches: ${fmt(added, 2)} ms`);
  return { savedSearches: settings.savedSearches, writeRate: settings.writeRate, rounds, addedP50Ms: added };
}

/** Waits (at most 60 s) until the matcher has caught up, so the next run starts from a quiet service. */
async function waitForMatcher(db: BenchDb): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < 60_000) {
    const [row] = await db.all<{ n: number }>(
      'SELECT COUNT(*) AS n FROM outbox_events WHERE searchesMatchedAt IS NULL',
    );
    if (Number(row.n) === 0) return;
    await sleep(200);
  }
}
