// What the inbox phase measures (issue 12's performance targets) and how each is judged.
import type { ScenarioResult } from '../scenarios.js';
import { fmt, fmtRatio } from '../util.js';

export interface LatencySummary {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

export interface InboxResults {
  unreadCount?: ScenarioResult;
  readAll?: {
    rows: number;
    /** HTTP status of the read-all (503: past REQUEST_TIMEOUT_MS; the UPDATE is not cancelled and may still commit). */
    status: number;
    updated: number;
    seconds: number;
    countsExact: boolean;
    countsDetail: string;
    idleP99: number;
    duringP99: number;
    p99Ratio: number;
  };
  fanout?: {
    members: number;
    firstSeconds: number;
    firstCount: number;
    events: number;
    sustainedNotifications: number;
    sustainedSeconds: number;
    perSecond: number;
  };
  stream?: {
    requested: number;
    opened: number;
    failed: number;
    firstError?: string;
    openSeconds: number;
    idleRssMb: number;
    rssOpenMb: number;
    peakRssMb: number;
    /** Service CPU while the streams are open and nothing changes (heartbeats, session checks). */
    idleCpuPercent: number;
    rate: number;
    changes: number;
    /** From the request that made the change to the client's receipt (an upper bound of commit-to-client). */
    latency: LatencySummary;
    /** The PUT that made each change, until its answer (commit happened before it). */
    requestLatency: LatencySummary;
    missing: number;
  };
  listVisible?: LatencySummary & { missing: number };
  email?: { messages: number; sinkReceived: number; sent: number; seconds: number; perSecond: number };
  notes: string[];
}

/** Target rows for bench/report.ts (MariaDB). */
export function inboxTargets(
  inbox: InboxResults | undefined,
): { id: string; description: string; measured: string; met: boolean | null }[] {
  if (!inbox) return [];
  const rows: { id: string; description: string; measured: string; met: boolean | null }[] = [];
  const add = (id: string, description: string, met: boolean | null, measured: string) =>
    rows.push({ id, description, measured, met });
  const u = inbox.unreadCount;
  add(
    'inbox-unread-count',
    'unread-count req/s >= 0.9 x baseline',
    u && Number.isFinite(u.rpsRatio) ? u.rpsRatio >= 0.9 : null,
    u ? `${fmtRatio(u.rpsRatio)} (${fmt(u.service.rps)} vs ${fmt(u.baseline?.rps ?? NaN)} req/s)` : 'not measured',
  );
  const r = inbox.readAll;
  add(
    'inbox-read-all',
    `read-all over ${r ? fmt(r.rows, 0) : '100,000'} unread of one user <= 5 s, counts exact after`,
    r ? r.seconds <= 5 && r.countsExact && r.updated === r.rows : null,
    r
      ? `HTTP ${r.status} after ${fmt(r.seconds, 2)} s, ${fmt(r.updated, 0)} updated; ${r.countsDetail}`
      : 'not measured',
  );
  add(
    'inbox-read-all-others',
    "Other users' list p99 during read-all <= 2 x idle",
    r && Number.isFinite(r.p99Ratio) ? r.p99Ratio <= 2 : null,
    r ? `${fmtRatio(r.p99Ratio)} (${fmt(r.duringP99, 1)} vs idle ${fmt(r.idleP99, 1)} ms)` : 'not measured',
  );
  const f = inbox.fanout;
  add(
    'inbox-fanout',
    `document.created in a project of ${f ? fmt(f.members, 0) : '5,000'} members -> all notifications <= 2.5 s`,
    f ? f.firstCount === f.members && f.firstSeconds <= 2.5 : null,
    f ? `${fmt(f.firstSeconds, 2)} s for ${fmt(f.firstCount, 0)}` : 'not measured',
  );
  add(
    'inbox-dispatch-rate',
    'Dispatcher sustains >= 2,000 in-app notifications/s',
    f ? f.perSecond >= 2000 : null,
    f
      ? `${fmt(f.perSecond, 0)}/s (${fmt(f.sustainedNotifications, 0)} from ${f.events} events in ${fmt(f.sustainedSeconds, 2)} s)`
      : 'not measured',
  );
  const s = inbox.stream;
  add(
    'inbox-streams-rss',
    `${s ? fmt(s.requested, 0) : '10,000'} concurrent SSE streams on one instance, RSS <= 350 MB`,
    s ? s.opened === s.requested && s.peakRssMb <= 350 : null,
    s
      ? `${fmt(s.opened, 0)} open (${s.failed} failed${s.firstError ? `: ${s.firstError}` : ''}) in ${fmt(s.openSeconds, 1)} s; ` +
          `RSS idle ${fmt(s.idleRssMb, 0)}, open ${fmt(s.rssOpenMb, 0)}, peak ${fmt(s.peakRssMb, 0)} MB; quiet streams cost ${fmt(s.idleCpuPercent, 1)}% CPU`
      : 'not measured',
  );
  add(
    'inbox-stream-latency',
    `At ${s ? s.rate : 100} new notifications/s, change-to-client p99 <= 250 ms`,
    s && s.latency.samples > 0 ? s.latency.p99 <= 250 && s.missing === 0 : null,
    s
      ? `p50 ${fmt(s.latency.p50, 1)} p99 ${fmt(s.latency.p99, 1)} max ${fmt(s.latency.max, 1)} ms over ${s.latency.samples} receipts (the changes' requests: p50 ${fmt(s.requestLatency.p50, 1)} p99 ${fmt(s.requestLatency.p99, 1)} ms); ${s.missing} missing`
      : 'not measured',
  );
  const l = inbox.listVisible;
  add(
    'inbox-list-visible',
    "A notification appears in its recipient's list within 1 s (p99)",
    l && l.samples > 0 ? l.p99 <= 1000 && l.missing === 0 : null,
    l ? `p50 ${fmt(l.p50, 1)} p99 ${fmt(l.p99, 1)} ms over ${l.samples}; ${l.missing} missing` : 'not measured',
  );
  const e = inbox.email;
  add(
    'inbox-email-rate',
    'E-mail >= 100 messages/s to a local SMTP server',
    e ? e.perSecond >= 100 && e.sent === e.messages : null,
    e
      ? `${fmt(e.perSecond, 0)}/s (${fmt(e.sent, 0)}/${fmt(e.messages, 0)} sent, sink got ${fmt(e.sinkReceived, 0)}, ${fmt(e.seconds, 1)} s)`
      : 'not measured',
  );
  return rows;
}
