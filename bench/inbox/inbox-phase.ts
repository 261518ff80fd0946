// Issue 12's performance targets on MariaDB, after the list/update/login scenarios (the data is
// theirs: users, projects, documents, 1M notifications). Adds its own rows: a reader with 100,000
// unread notifications, a project of 5,000 members, a project the stream changes happen in, and
// pending e-mails. See bench/README.md ("Inbox").
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type mysql from 'mysql2/promise';
import { SMTPServer } from 'smtp-server';
import { identityKey } from '../../src/common/text/identity-key.js';
import { int, type BenchConfig } from '../config.js';
import { NOTIFICATION_COLUMNS, USER_COLUMNS, sqlDate, userId, username, type DataPlan, type Row } from '../datagen.js';
import { adminConnection, bulkInsertMysql, mysqlUrl } from '../load-mysql.js';
import { measure } from '../loadrun.js';
import { describeRun, runScenario, signToken, type Scenario } from '../scenarios.js';
import { rssMb, startServer, track, type ServerHandle } from '../servers.js';
import { cpuSeconds, fmt, freePort, httpJson, log, percentile, sleep } from '../util.js';
import type { InboxResults, LatencySummary } from './inbox-results.js';

export const INBOX_SCENARIOS = ['inbox-unread-count', 'inbox-read-all', 'inbox-fanout', 'inbox-stream', 'inbox-email'];

/** BENCH_SCENARIOS may name single inbox scenarios, or `inbox` for all of them. */
export function inboxSelected(config: BenchConfig, name?: string): boolean {
  if (!config.scenarios) return true;
  if (config.scenarios.includes('inbox')) return true;
  return name ? config.scenarios.includes(name) : config.scenarios.some((s) => INBOX_SCENARIOS.includes(s));
}

/** BENCH_SCENARIOS names inbox scenarios and nothing else (the list/update/login part is skipped). */
export function inboxOnly(config: BenchConfig): boolean {
  return Boolean(config.scenarios?.every((s) => s === 'inbox' || INBOX_SCENARIOS.includes(s)));
}

/** Sizes of the inbox phase (defaults are the issue's figures). */
function inboxSettings(config: BenchConfig) {
  return {
    readAllRows: int('BENCH_INBOX_READALL', 100_000),
    fanoutMembers: Math.min(int('BENCH_INBOX_FANOUT_MEMBERS', 5_000), config.users - 2),
    fanoutEvents: int('BENCH_INBOX_FANOUT_EVENTS', 4),
    streams: int('BENCH_INBOX_STREAMS', 10_000),
    streamRate: int('BENCH_INBOX_STREAM_RATE', 100),
    emails: int('BENCH_INBOX_EMAILS', 3_000),
    redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
  };
}

export interface InboxContext {
  config: BenchConfig;
  plan: DataPlan;
  tokens: string[];
  paths: { root: string; serviceMain: string; worker: string; probe: string };
  /** The service environment run-bench uses (database, secrets, throttles), for a given database URL and port. */
  serviceEnv(databaseUrl: string, port: number): Record<string, string>;
  nodeFlags: string[];
  dbPid?: number;
}

const ids = {
  readAllUser: (k: number) => userId(k),
  notification: (n: number) => `b0000007-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
  project: (n: number) => `b0000008-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
};

function summary(values: number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  return {
    samples: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

async function one<T>(db: mysql.Connection, sql: string, params: unknown[] = []): Promise<T> {
  const [rows] = (await db.query(sql, params)) as unknown as [T[]];
  return rows[0];
}

export async function runInboxMysql(context: InboxContext): Promise<InboxResults> {
  const { config, paths } = context;
  const settings = inboxSettings(config);
  const results: InboxResults = { notes: [] };
  const db = await adminConnection(config, config.mysqlDatabase);
  const extraEnv = {
    REDIS_URL: settings.redisUrl,
    // A prefix of this run only: the service publishes on <prefix>notifications and stores no keys.
    REDIS_KEY_PREFIX: `inboxbench-${process.pid}:`,
    SSE_MAX_STREAMS_PER_USER: String(Math.min(1000, Math.ceil(settings.streams / (config.users - 1)) + 1)),
    STORAGE_DIR: join(paths.root, 'files'),
  };
  const start = async (name: string, env: Record<string, string>): Promise<ServerHandle> => {
    const port = await freePort();
    return startServer({
      name,
      script: paths.serviceMain,
      cwd: paths.root,
      port,
      env: { ...context.serviceEnv(mysqlUrl(config), port), ...extraEnv, ...env },
      probePath: paths.probe,
      nodeFlags: context.nodeFlags,
    });
  };
  try {
    let service = await start('service', {});
    try {
      if (inboxSelected(config, 'inbox-unread-count')) results.unreadCount = await unreadCount(context, service);
      if (inboxSelected(config, 'inbox-read-all')) results.readAll = await readAll(context, service, db, settings);
      if (inboxSelected(config, 'inbox-fanout')) results.fanout = await fanout(context, service, db, settings);
      if (inboxSelected(config, 'inbox-stream')) {
        // A fresh instance: the RSS of the streams, not of the load before.
        await service.stop();
        service = await start('service', {});
        await stream(context, service, db, settings, results);
      }
    } finally {
      await service.stop();
    }
    if (inboxSelected(config, 'inbox-email')) results.email = await email(context, db, settings, start);
  } finally {
    await db.end();
  }
  return results;
}

/** unread-count against its own minimal baseline, back to back like the list scenarios. */
async function unreadCount(context: InboxContext, service: ServerHandle) {
  const { config, tokens, paths } = context;
  const port = await freePort();
  const baseline = await startServer({
    name: 'baseline',
    script: join(paths.root, 'dist/bench/inbox/inbox-baseline-server.js'),
    cwd: paths.root,
    port,
    env: {
      NODE_ENV: 'production',
      JWT_SECRET: config.jwtSecret,
      DATABASE_URL: mysqlUrl(config),
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    probePath: paths.probe,
    nodeFlags: context.nodeFlags,
  });
  try {
    const typical = tokens.slice(1, config.probeUsers + 1);
    const path = '/api/notifications/unread-count';
    const answers = await Promise.all(
      [service, baseline].map((server) =>
        httpJson(server.url + path, { headers: { authorization: `Bearer ${tokens[1]}` } }),
      ),
    );
    const same = JSON.stringify(answers[0].body) === JSON.stringify(answers[1].body);
    log(`[mysql] inbox-unread-count: response check: ${same ? 'identical JSON' : 'DIFFERENT JSON'}`);
    if (!same) log(`  service ${JSON.stringify(answers[0].body)} / baseline ${JSON.stringify(answers[1].body)}`);
    const scenario: Scenario = {
      name: 'inbox-unread-count',
      title: `GET /api/notifications/unread-count, typical users (${typical.length}, rotating)`,
      job: () => ({
        method: 'GET',
        connections: config.connections,
        tokens: typical,
        items: typical.map((_, i): [string, number] => [path, i]),
      }),
    };
    const result = await runScenario(scenario, 'mysql', { service, baseline }, config, paths.worker, context.dbPid);
    result.shapeCheck = same ? 'identical JSON' : 'DIFFERENT JSON';
    return result;
  } finally {
    await baseline.stop();
  }
}

/** A user with N unread notifications marks them all read while other users read their lists at a fixed rate. */
async function readAll(
  context: InboxContext,
  service: ServerHandle,
  db: mysql.Connection,
  settings: ReturnType<typeof inboxSettings>,
) {
  const { config, plan, tokens, paths } = context;
  const k = config.users + 1;
  const reader = ids.readAllUser(k);
  const name = `${username(k)}_reader`;
  const address = `${name}@bench.example.com`;
  const userRow: Row = [
    reader,
    name,
    identityKey(name),
    address,
    identityKey(address),
    'Read',
    'All',
    plan.passwordHash,
    1,
    0,
    sqlDate(plan.now),
  ];
  await db.query('DELETE FROM users WHERE id = ?', [reader]);
  await bulkInsertMysql(db, 'users', USER_COLUMNS, [userRow], { batch: 1, total: 1, label: 'read-all user' });
  await db.query('INSERT INTO user_roles (userId, roleId) VALUES (?, ?)', [reader, plan.roleIds.user]);
  function* rows(): Generator<Row> {
    for (let i = 0; i < settings.readAllRows; i++) {
      yield [
        ids.notification(i),
        reader,
        `Document ${i} updated`,
        `Hello, document ${i} was updated. Open the document management service to see the details.`,
        'in_app',
        'sent',
        null,
        sqlDate(plan.now - 30 * 86_400_000 + i * 10),
      ];
    }
  }
  await bulkInsertMysql(db, 'notifications', NOTIFICATION_COLUMNS, rows(), {
    batch: config.batch,
    total: settings.readAllRows,
    label: 'read-all notifications (unread, triggers on)',
  });
  const token = signToken(config, reader);
  const typical = tokens.slice(1, config.probeUsers + 1);
  const listJob = {
    url: service.url,
    method: 'GET' as const,
    connections: config.floodConnections,
    overallRate: config.floodRate,
    tokens: typical,
    items: typical.map((_, i): [string, number] => ['/api/notifications', i]),
    // Long enough to span the read-all (the target allows 5 s), the same length idle and during.
    duration: Math.max(config.duration, 10),
    warmup: 1,
    waitForGo: true,
    tag: 'inbox-readall-list',
  };
  const idle = await measure(service, paths.worker, listJob, context.dbPid);
  log(`  other users' list at ${config.floodRate} req/s, idle: ${describeRun(idle)}`);
  const during = measure(service, paths.worker, { ...listJob, warmup: 0, tag: 'inbox-readall-list-during' });
  await sleep(1500);
  const t0 = performance.now();
  const answer = await httpJson(`${service.url}/api/notifications/read-all`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const seconds = (performance.now() - t0) / 1000;
  const busy = await during;
  log(`  other users' list during read-all: ${describeRun(busy)}`);
  const settling = await waitForNoWriteTransactions(db);
  if (settling > 1)
    log(`  MariaDB finished the read-all's transaction (commit or rollback) ${fmt(settling, 1)} s later`);
  const updated = Number((answer.body as { updated?: unknown }).updated ?? NaN);
  if (seconds > listJob.duration - 1.5) {
    log(`  read-all outlasted the list run (${fmt(seconds, 1)} s): raise BENCH_DURATION to cover it`);
  }
  const unreadRows = await one<{ n: number }>(
    db,
    'SELECT COUNT(*) AS n FROM notifications WHERE userId = ? AND readAt IS NULL',
    [reader],
  );
  const counts = await one<{ unread: number | null; total: number | null }>(
    db,
    'SELECT SUM(CASE WHEN isRead = 0 THEN total ELSE 0 END) AS unread, SUM(total) AS total FROM notification_counts WHERE userId = ?',
    [reader],
  );
  const api = await httpJson(`${service.url}/api/notifications/unread-count`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const apiUnread = (api.body as { unread?: number }).unread;
  const countsExact =
    Number(unreadRows.n) === 0 &&
    Number(counts.unread ?? 0) === 0 &&
    Number(counts.total ?? 0) === settings.readAllRows &&
    apiUnread === 0;
  const countsDetail = `after: unread rows ${unreadRows.n}, counts table unread ${counts.unread ?? 0} / total ${counts.total ?? 0}, API unread ${apiUnread}`;
  log(`[mysql] inbox-read-all: HTTP ${answer.status}, ${updated} updated in ${fmt(seconds, 2)} s; ${countsDetail}`);
  return {
    rows: settings.readAllRows,
    status: answer.status,
    updated,
    seconds,
    countsExact,
    countsDetail,
    idleP99: idle.load.latency.p99,
    duringP99: busy.load.latency.p99,
    p99Ratio: busy.load.latency.p99 / idle.load.latency.p99,
  };
}

/**
 * A read-all answered 503 by the request deadline goes on in MariaDB (nothing cancels the UPDATE):
 * wait until it committed or rolled back (at most 120 s), so the counts check sees its outcome and
 * the next scenario does not measure it.
 */
async function waitForNoWriteTransactions(db: mysql.Connection): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 120_000) {
    const row = await one<{ n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_rows_modified > 1000',
    );
    if (Number(row.n) === 0) return (performance.now() - started) / 1000;
    await sleep(500);
  }
  log('  a large write transaction is still running after 120 s');
  return (performance.now() - started) / 1000;
}

async function documentTypeId(db: mysql.Connection): Promise<string> {
  return (await one<{ id: string }>(db, 'SELECT id FROM document_types ORDER BY name LIMIT 1')).id;
}

/** A project of its own with the given members (bulk insert) and `manager` as its manager. */
async function makeProject(
  db: mysql.Connection,
  plan: DataPlan,
  id: string,
  name: string,
  members: { index: number; role: string }[],
): Promise<void> {
  await db.query('INSERT INTO projects (id, name, createdAt) VALUES (?, ?, ?)', [id, name, sqlDate(plan.now)]);
  const created = sqlDate(plan.now);
  await bulkInsertMysql(
    db,
    'project_members',
    ['projectId', 'userId', 'role', 'createdAt'],
    members.map((m): Row => [id, userId(m.index), m.role, created]),
    { batch: 1000, total: members.length, label: `members of ${name}` },
  );
}

async function upload(service: ServerHandle, token: string, projectId: string, typeId: string, n: number) {
  const form = new FormData();
  form.append('projectId', projectId);
  form.append('documentTypeId', typeId);
  form.append('file', new Blob([`Fan-out document ${n}\n`], { type: 'text/plain' }), `fanout-${n}.txt`);
  const response = await fetch(`${service.url}/api/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = (await response.json()) as { document?: { id: string } };
  if (response.status !== 201 || !body.document) {
    throw new Error(`upload answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body.document.id;
}

/** Polls until the documents' events have `expected` in-app notifications each (or 60 s passed). */
async function waitForNotifications(db: mysql.Connection, documentIds: string[], expected: number): Promise<number> {
  const deadline = performance.now() + 60_000;
  let count = 0;
  while (performance.now() < deadline) {
    const row = await one<{ n: number }>(
      db,
      `SELECT COUNT(*) AS n FROM notifications WHERE notificationType = 'in_app' AND sourceEventId IN
         (SELECT id FROM outbox_events WHERE type = 'document.created' AND documentId IN (?))`,
      [documentIds],
    );
    count = Number(row.n);
    if (count >= expected * documentIds.length) break;
    await sleep(20);
  }
  return count;
}

async function fanout(
  context: InboxContext,
  service: ServerHandle,
  db: mysql.Connection,
  settings: ReturnType<typeof inboxSettings>,
) {
  const { config, plan } = context;
  const members = settings.fanoutMembers;
  const uploader = config.users - 1;
  const projectId = ids.project(1);
  await makeProject(db, plan, projectId, 'Fan-out project', [
    ...Array.from({ length: members }, (_, i) => ({ index: i + 1, role: 'viewer' })),
    { index: uploader, role: 'contributor' },
  ]);
  const typeId = await documentTypeId(db);
  const token = context.tokens[uploader];
  // Warm the upload path once (first multipart parse, file store directories) in a project without members.
  const warmProject = ids.project(2);
  await makeProject(db, plan, warmProject, 'Fan-out warm-up', [{ index: uploader, role: 'contributor' }]);
  await upload(service, token, warmProject, typeId, 0);

  const t0 = performance.now();
  const first = await upload(service, token, projectId, typeId, 1);
  const firstCount = await waitForNotifications(db, [first], members);
  const firstSeconds = (performance.now() - t0) / 1000;
  log(`[mysql] inbox-fanout: 1 event -> ${firstCount}/${members} in-app notifications in ${fmt(firstSeconds, 2)} s`);

  const events = settings.fanoutEvents;
  const t1 = performance.now();
  const documents = await Promise.all(
    Array.from({ length: events }, (_, i) => upload(service, token, projectId, typeId, 2 + i)),
  );
  const sustainedNotifications = await waitForNotifications(db, documents, members);
  const sustainedSeconds = (performance.now() - t1) / 1000;
  const perSecond = sustainedNotifications / sustainedSeconds;
  log(
    `[mysql] inbox-fanout: ${events} events at once -> ${sustainedNotifications} notifications in ${fmt(sustainedSeconds, 2)} s (${fmt(perSecond, 0)}/s)`,
  );
  return { members, firstSeconds, firstCount, events, sustainedNotifications, sustainedSeconds, perSecond };
}

/**
 * Opens the streams from a separate process, then makes `rate` single-recipient changes per second
 * (a manager adds users with open streams to a project: project.member_added) and times each from
 * the request to the stream's receipt. Then a short probe of the list: how soon a change is listed.
 */
async function stream(
  context: InboxContext,
  service: ServerHandle,
  db: mysql.Connection,
  settings: ReturnType<typeof inboxSettings>,
  results: InboxResults,
): Promise<void> {
  const { config, plan, tokens, paths } = context;
  const manager = config.users - 1;
  const projectId = ids.project(3);
  await makeProject(db, plan, projectId, 'Stream project', [{ index: manager, role: 'manager' }]);
  const users = Array.from({ length: Math.min(settings.streams, config.users - 2) }, (_, i) => i + 1);
  await sleep(1000);
  const idleRssMb = rssMb(service.pid);

  const clients = fork(join(paths.root, 'dist/bench/inbox/sse-clients.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  track(clients);
  const receipts: [number, number][] = [];
  type Opened = { open: number; failed: number; firstError?: string; ms: number };
  let allOpened: (value: Opened) => void = () => undefined;
  const openedAll = new Promise<Opened>((resolve) => (allOpened = resolve));
  clients.on('message', (message: { type: string; items?: [number, number][] } & Partial<Opened>) => {
    if (message.type === 'received' && message.items) receipts.push(...message.items);
    if (message.type === 'opened') allOpened(message as Opened);
  });
  let peakRss = idleRssMb;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(service.pid))), 200);
  try {
    log(`[mysql] inbox-stream: opening ${settings.streams} streams over ${users.length} users`);
    clients.send({
      type: 'open',
      url: service.url,
      tokens: users.map((k) => tokens[k]),
      users,
      count: settings.streams,
      concurrency: 64,
    });
    const opened = await openedAll;
    await sleep(2000);
    const rssOpenMb = rssMb(service.pid);
    // What open, quiet streams cost (heartbeats and session checks): the service's CPU over one sweep period or more.
    const cpu0 = cpuSeconds(service.pid);
    await sleep(12_000);
    const idleCpuPercent = ((cpuSeconds(service.pid) - cpu0) / 12) * 100;
    log(
      `  ${opened.open} open, ${opened.failed} failed${opened.firstError ? ` (${opened.firstError})` : ''} in ${fmt(opened.ms / 1000, 1)} s; ` +
        `service RSS idle ${fmt(idleRssMb, 0)} MB, with streams ${fmt(rssOpenMb, 0)} MB; CPU with quiet streams ${fmt(idleCpuPercent, 1)}% of a core`,
    );

    const managerAuth = { authorization: `Bearer ${tokens[manager]}`, 'content-type': 'application/json' };
    const changes = Math.min(users.length, Math.round(settings.streamRate * config.duration));
    const sentAt = new Map<number, number>();
    const requests: Promise<unknown>[] = [];
    const requestMs: number[] = [];
    const started = performance.now();
    for (let i = 0; i < changes; i++) {
      const due = started + (i * 1000) / settings.streamRate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const target = users[i];
      const sent = performance.timeOrigin + performance.now();
      sentAt.set(target, sent);
      requests.push(
        fetch(`${service.url}/api/projects/${projectId}/members/${userId(target)}`, {
          method: 'PUT',
          headers: managerAuth,
          body: '{"role":"viewer"}',
        })
          .then((r) => r.arrayBuffer())
          .then(() => requestMs.push(performance.timeOrigin + performance.now() - sent)),
      );
    }
    await Promise.all(requests);
    const streamsPerUser = new Map<number, number>();
    for (let n = 0; n < opened.open; n++) {
      const k = users[n % users.length];
      streamsPerUser.set(k, (streamsPerUser.get(k) ?? 0) + 1);
    }
    let expected = 0;
    for (const k of sentAt.keys()) expected += streamsPerUser.get(k) ?? 0;
    // Receipts still on their way: wait while they keep coming (at most 30 s).
    const waitUntil = performance.now() + 30_000;
    let seen = -1;
    while (receipts.length < expected && receipts.length > seen && performance.now() < waitUntil) {
      seen = receipts.length;
      await sleep(3000);
    }
    const latencies: number[] = [];
    const received = new Map<number, number>();
    for (const [k, at] of receipts) {
      const sent = sentAt.get(k);
      if (sent === undefined) continue;
      latencies.push(at - sent);
      received.set(k, (received.get(k) ?? 0) + 1);
    }
    let missing = 0;
    for (const k of sentAt.keys()) missing += Math.max(0, (streamsPerUser.get(k) ?? 0) - (received.get(k) ?? 0));
    const latency = summary(latencies);
    const request = summary(requestMs);
    log(`  the changes' own requests (PUT member): p50 ${fmt(request.p50, 1)} p99 ${fmt(request.p99, 1)} ms`);
    log(
      `[mysql] inbox-stream: ${changes} changes at ${settings.streamRate}/s -> p50 ${fmt(latency.p50, 1)} p99 ${fmt(latency.p99, 1)} max ${fmt(latency.max, 1)} ms, ${missing} missing; peak RSS ${fmt(peakRss, 0)} MB`,
    );
    results.stream = {
      requested: settings.streams,
      opened: opened.open,
      failed: opened.failed,
      firstError: opened.firstError,
      openSeconds: opened.ms / 1000,
      idleRssMb,
      rssOpenMb,
      peakRssMb: peakRss,
      idleCpuPercent,
      rate: settings.streamRate,
      changes,
      latency,
      requestLatency: request,
      missing,
    };
  } finally {
    clearInterval(sampler);
    clients.send({ type: 'close' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (clients.exitCode === null) clients.kill('SIGKILL');
  }
  results.listVisible = await listVisibility(context, service, projectId, manager);
}

/** Changes one at a time; each is timed from its request until the recipient's list shows it. */
async function listVisibility(context: InboxContext, service: ServerHandle, projectId: string, manager: number) {
  const { config, tokens } = context;
  const samples = Math.min(50, config.users - 2);
  const latencies: number[] = [];
  let missing = 0;
  for (let i = 0; i < samples; i++) {
    // Users the stream phase did not add (from the top, below the manager).
    const target = config.users - 2 - i;
    const t0 = performance.now();
    await fetch(`${service.url}/api/projects/${projectId}/members/${userId(target)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tokens[manager]}`, 'content-type': 'application/json' },
      body: '{"role":"viewer"}',
    }).then((r) => r.arrayBuffer());
    let seen = false;
    while (performance.now() - t0 < 5000) {
      const page = await httpJson(`${service.url}/api/notifications?limit=1`, {
        headers: { authorization: `Bearer ${tokens[target]}` },
      });
      const top = (page.body as { notifications?: { event?: string; subject?: string }[] }).notifications?.[0];
      if (top?.event === 'project.member_added') {
        seen = true;
        break;
      }
      await sleep(5);
    }
    if (seen) latencies.push(performance.now() - t0);
    else missing++;
  }
  const result = { ...summary(latencies), missing };
  log(
    `[mysql] inbox list visibility: p50 ${fmt(result.p50, 1)} p99 ${fmt(result.p99, 1)} ms over ${result.samples}, ${missing} missing`,
  );
  return result;
}

/** N pending e-mails inserted at once; a local smtp-server is the sink; sent/s until all are sent. */
async function email(
  context: InboxContext,
  db: mysql.Connection,
  settings: ReturnType<typeof inboxSettings>,
  start: (name: string, env: Record<string, string>) => Promise<ServerHandle>,
) {
  const { config } = context;
  let sinkReceived = 0;
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(data, _session, callback) {
      data.on('data', () => undefined);
      data.on('end', () => {
        sinkReceived++;
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
  const service = await start('service', { SMTP_URL: `smtp://127.0.0.1:${port}` });
  try {
    const recipients = Math.max(1, config.probeUsers);
    const now = sqlDate(Date.now() - 1000);
    const columns = [...NOTIFICATION_COLUMNS, 'deliveryStatus', 'attempts', 'nextAttemptAt'];
    function* rows(): Generator<Row> {
      for (let i = 0; i < settings.emails; i++) {
        yield [
          ids.notification(10_000_000 + i),
          userId(1 + (i % recipients)),
          `Document ${i} changed`,
          `Hello, document ${i} was changed. Open the document management service to see the details.`,
          'email',
          'pending',
          null,
          now,
          'pending',
          0,
          now,
        ];
      }
    }
    const t0 = performance.now();
    await bulkInsertMysql(db, 'notifications', columns, rows(), {
      batch: config.batch,
      total: settings.emails,
      label: 'pending e-mails',
    });
    const deadline = performance.now() + 300_000;
    let sent = 0;
    while (performance.now() < deadline) {
      const row = await one<{ n: number }>(
        db,
        "SELECT COUNT(*) AS n FROM notifications WHERE id >= ? AND id < ? AND deliveryStatus IN ('sent', 'failed')",
        [ids.notification(10_000_000), ids.notification(10_000_000 + settings.emails)],
      );
      sent = Number(row.n);
      if (sent >= settings.emails) break;
      await sleep(100);
    }
    const seconds = (performance.now() - t0) / 1000;
    const failed = await one<{ n: number }>(
      db,
      "SELECT COUNT(*) AS n FROM notifications WHERE id >= ? AND id < ? AND deliveryStatus = 'failed'",
      [ids.notification(10_000_000), ids.notification(10_000_000 + settings.emails)],
    );
    const delivered = sent - Number(failed.n);
    log(
      `[mysql] inbox-email: ${delivered}/${settings.emails} sent (${failed.n} failed), sink got ${sinkReceived}, in ${fmt(seconds, 1)} s (${fmt(delivered / seconds, 0)}/s)`,
    );
    return { messages: settings.emails, sinkReceived, sent: delivered, seconds, perSecond: delivered / seconds };
  } finally {
    await service.stop();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
