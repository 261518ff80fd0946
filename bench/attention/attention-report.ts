// Results, targets and the markdown of the attention part: bench/results/attention.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt } from '../util.js';

export interface FanoutResult {
  members: number;
  watchers: number;
  ifUnread: number;
  /** Single events, one after the other: upload answered, in-app complete, all rows complete. */
  singles: {
    uploadMs: number;
    inAppSeconds: number;
    allSeconds: number;
    made: { inApp: number; email: number };
    serviceCpuSeconds: number;
    dbCpuSeconds: number;
  }[];
  /** Median of the singles' in-app completion (from the upload request). */
  firstSeconds: number;
  events: number;
  sustainedRows: number;
  sustainedSeconds: number;
  perSecond: number;
  sustainedCpuSeconds: number;
  sustainedDbCpuSeconds: number;
  /** Rows per second of CPU (service + MariaDB): what the machine would do with a free core each. */
  rowsPerCpuSecond: number;
}

export interface WebhookResult {
  deliveries: number;
  apiRate: number;
  rounds: {
    delivered: number;
    received: number;
    drainSeconds: number;
    perSecond: number;
    serviceCpuSeconds: number;
    idleP50: number;
    idleP99: number;
    duringP50: number;
    duringP99: number;
    p99Ratio: number;
    drainCoveredRun: boolean;
  }[];
  perSecond: number;
  p99Ratio: number;
}

export interface SavedSearchResult {
  savedSearches: number;
  writeRate: number;
  rounds: {
    p50Without: number;
    p50With: number;
    p99Without: number;
    p99With: number;
    addedP50Ms: number;
    backlogAfterRun: number;
    matches: number;
  }[];
  addedP50Ms: number;
}

export interface AttentionDbResults {
  database: 'mysql' | 'sqlite';
  loadSeconds: number;
  loadAverage: { start: string; end: string };
  fanout?: FanoutResult;
  webhooks?: WebhookResult;
  savedSearches?: SavedSearchResult;
}

export interface AttentionResults {
  date: string;
  git: string;
  settings: Record<string, number>;
  databases: AttentionDbResults[];
  targets: { database: string; target: string; measured: string; met: boolean | null }[];
}

export function attentionTargets(databases: AttentionDbResults[]): AttentionResults['targets'] {
  const targets: AttentionResults['targets'] = [];
  const add = (database: string, target: string, value: number, measured: string, met: (v: number) => boolean) =>
    targets.push({ database, target, measured, met: Number.isFinite(value) ? met(value) : null });
  for (const db of databases) {
    const { fanout, webhooks, savedSearches } = db;
    if (fanout) {
      add(
        db.database,
        'one event: every in-app notification within 2.5 s',
        fanout.firstSeconds,
        `${fmt(fanout.firstSeconds, 2)} s (median of ${fanout.singles.length})`,
        (v) => v <= 2.5,
      );
      add(
        db.database,
        'dispatcher >= 2,000 notifications/s',
        fanout.perSecond,
        `${fmt(fanout.perSecond, 0)}/s`,
        (v) => v >= 2000,
      );
    }
    if (webhooks) {
      add(
        db.database,
        'webhooks >= 200 deliveries/s',
        webhooks.perSecond,
        `${fmt(webhooks.perSecond, 0)}/s`,
        (v) => v >= 200,
      );
      add(
        db.database,
        'API p99 during the drain <= 1.2 x idle',
        webhooks.p99Ratio,
        `${fmt(webhooks.p99Ratio, 2)} x`,
        (v) => v <= 1.2,
      );
    }
    if (savedSearches) {
      add(
        db.database,
        `write p50 added by ${savedSearches.savedSearches} saved searches <= 1 ms`,
        savedSearches.addedP50Ms,
        `${fmt(savedSearches.addedP50Ms, 2)} ms`,
        (v) => v <= 1,
      );
    }
  }
  return targets;
}

export function attentionMarkdown(results: AttentionResults): string {
  const lines = [
    '# Attention benchmark (issue 33)',
    '',
    `${results.date}, ${results.git}. Method: bench/README.md ("Attention"). Settings: ${Object.entries(
      results.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}.`,
    '',
    '| Database | Target | Measured | Met |',
    '| --- | --- | --- | --- |',
    ...results.targets.map(
      (t) =>
        `| ${t.database} | ${t.target} | ${t.measured} | ${t.met === null ? 'not measured' : t.met ? 'met' : '**not met**'} |`,
    ),
    '',
  ];
  for (const db of results.databases) {
    lines.push(
      `## ${db.database}`,
      '',
      `Load average (1/5/15 min) at start ${db.loadAverage.start}, at end ${db.loadAverage.end}.`,
      '',
    );
    if (db.fanout) {
      const f = db.fanout;
      lines.push(
        `Fan-out: project of ${f.members} members, ${f.watchers} project watchers, ${f.ifUnread} with if_unread e-mail.`,
        '',
        '| Event | Upload answered | In-app complete | All rows (in-app + e-mail) | CPU service / MariaDB |',
        '| --- | --- | --- | --- | --- |',
        ...f.singles.map(
          (s, i) =>
            `| single ${i + 1} | ${fmt(s.uploadMs, 0)} ms | ${fmt(s.inAppSeconds, 2)} s (${s.made.inApp}) | ${fmt(s.allSeconds, 2)} s (${s.made.email} e-mails) | ${fmt(s.serviceCpuSeconds, 2)} / ${fmt(s.dbCpuSeconds, 2)} s |`,
        ),
        `| ${f.events} at once | | | ${f.sustainedRows} rows in ${fmt(f.sustainedSeconds, 2)} s = ${fmt(f.perSecond, 0)}/s (${fmt(f.rowsPerCpuSecond, 0)} per CPU second) | ${fmt(f.sustainedCpuSeconds, 2)} / ${fmt(f.sustainedDbCpuSeconds, 2)} s |`,
        '',
      );
    }
    if (db.webhooks) {
      const w = db.webhooks;
      lines.push(
        `Webhooks: ${w.deliveries} deliveries per round to a local receiver; API load GET /api/documents/{id} at ${w.apiRate} req/s.`,
        '',
        '| Round | Drain | Deliveries/s | Received | API p50 idle / during | API p99 idle / during | p99 ratio | Service CPU |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        ...w.rounds.map(
          (r, i) =>
            `| ${i + 1} | ${fmt(r.drainSeconds, 1)} s${r.drainCoveredRun ? '' : ' (ended before the API run)'} | ${fmt(r.perSecond, 0)} | ${r.received} | ${fmt(r.idleP50, 1)} / ${fmt(r.duringP50, 1)} ms | ${fmt(r.idleP99, 1)} / ${fmt(r.duringP99, 1)} ms | ${fmt(r.p99Ratio, 2)} | ${fmt(r.serviceCpuSeconds, 1)} s |`,
        ),
        '',
      );
    }
    if (db.savedSearches) {
      const s = db.savedSearches;
      lines.push(
        `Saved searches: PUT /api/documents/{id} at ${s.writeRate} req/s, without and with ${s.savedSearches} alerting searches, alternating.`,
        '',
        '| Round | p50 without / with | p99 without / with | p50 added | Unmatched events after the run | Matches |',
        '| --- | --- | --- | --- | --- | --- |',
        ...s.rounds.map(
          (r, i) =>
            `| ${i + 1} | ${fmt(r.p50Without, 2)} / ${fmt(r.p50With, 2)} ms | ${fmt(r.p99Without, 1)} / ${fmt(r.p99With, 1)} ms | ${fmt(r.addedP50Ms, 2)} ms | ${r.backlogAfterRun} | ${r.matches} |`,
        ),
        '',
      );
    }
  }
  return lines.join('\n');
}

export function writeAttentionResults(projectRoot: string, results: AttentionResults): string {
  const dir = join(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'attention.json'), JSON.stringify(results, null, 2) + '\n');
  writeFileSync(join(dir, 'attention.md'), attentionMarkdown(results));
  return dir;
}
