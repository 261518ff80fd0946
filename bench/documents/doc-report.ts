// Targets and table lines of the documents phase (issue 11), appended to the bench report.
import type { ScenarioResult } from '../scenarios.js';
import { fmt, fmtRatio } from '../util.js';
import type { DocumentPhaseResults } from './doc-phase.js';

export type DocumentResults = Partial<Record<'mysql' | 'sqlite', DocumentPhaseResults>>;

interface Target {
  id: string;
  description: string;
  measured: string;
  met: boolean | null;
}

const NAMES = { mysql: 'MariaDB', sqlite: 'SQLite' } as const;

export function documentTargets(documents: DocumentResults | undefined): Target[] {
  const targets: Target[] = [];
  for (const db of [documents?.mysql, documents?.sqlite]) {
    if (!db) continue;
    const name = NAMES[db.database];
    const add = (id: string, description: string, value: number, ok: (v: number) => boolean, shown: string) =>
      targets.push({
        id: `${id}-${db.database}`,
        description: `${name}: ${description}`,
        measured: shown,
        met: Number.isFinite(value) ? ok(value) : null,
      });
    const scenario = (scenarioName: string) => db.scenarios.find((s) => s.name === scenarioName);
    const ratioTarget = (scenarioName: string, label: string, bound: number) => {
      const s = scenario(scenarioName);
      add(
        scenarioName,
        `${label} req/s >= ${bound} x baseline`,
        s?.rpsRatio ?? NaN,
        (v) => v >= bound,
        s ? `${fmtRatio(s.rpsRatio)} (${fmt(s.service.rps)} vs ${fmt(s.baseline?.rps ?? NaN)} req/s)` : 'not measured',
      );
    };
    ratioTarget(
      'doc-list-typical',
      `Document list page 1 (typical user, ${db.projects} projects, ${db.rows} documents)`,
      0.85,
    );
    ratioTarget('doc-list-project', 'Document list page 1 by projectId', 0.85);
    ratioTarget('doc-list-title', 'Document list page 1 by title', 0.85);
    for (const [scenarioName, label] of [
      ['doc-list-typical', 'typical user'],
      ['doc-list-many', `member of all ${db.projects} projects`],
      ['doc-list-reader', 'reader of everything'],
    ] as const) {
      const s = scenario(scenarioName);
      const bound = scenarioName === 'doc-list-typical' ? 50 : 100;
      add(
        `${scenarioName}-p50`,
        `Document list page 1, ${label}: p50 <= ${bound} ms`,
        s?.service.p50 ?? NaN,
        (v) => v <= bound,
        s ? `${fmt(s.service.p50, 1)} ms (baseline ${fmt(s.baseline?.p50 ?? NaN, 1)} ms)` : 'not measured',
      );
    }
    for (const plan of (db.listPlans ?? []).filter((p) => p.server === 'service')) {
      const disk = plan.costs.reduce((sum, cost) => sum + (cost.counters?.Created_tmp_disk_tables ?? 0), 0);
      const most = Math.max(...plan.statements);
      add(
        `${plan.scenario}-statements`,
        `${plan.scenario}: <= 2 statements per request (guard included), 0 on-disk temporary tables`,
        most <= 2 && disk === 0 ? 1 : 0,
        (v) => v === 1,
        `${plan.statements.join(',')} statements, ${disk} on-disk temporary tables`,
      );
    }
    for (const growth of db.growth) {
      const p50 = (growth.full?.service.p50 ?? NaN) / growth.stage1.service.p50;
      const control = (growth.full?.baseline?.p50 ?? NaN) / (growth.stage1.baseline?.p50 ?? NaN);
      add(
        `doc-growth:${growth.name}`,
        `${growth.name} p50 at ${growth.fullRows} / ${growth.stage1Rows} documents <= 1.2`,
        p50,
        (v) => v <= 1.2,
        `${fmtRatio(p50)} (${fmt(growth.stage1.service.p50, 2)} -> ${fmt(growth.full?.service.p50 ?? NaN, 2)} ms; baseline: ${fmtRatio(control)})`,
      );
    }
    const search = scenario('doc-search');
    ratioTarget('doc-search', 'Search q (a word in 0.5% of the documents)', 0.85);
    const latency = scenario('doc-search-latency');
    if (db.database === 'mysql') {
      add(
        'doc-search-p50',
        `Search q p50 <= 30 ms at ${db.rows} documents (one search at a time)`,
        latency?.service.p50 ?? NaN,
        (v) => v <= 30,
        latency
          ? `${fmt(latency.service.p50, 2)} ms (baseline ${fmt(latency.baseline?.p50 ?? NaN, 2)} ms; under ${search ? `full load: ${fmt(search.service.p50, 1)} ms at ${fmt(search.service.rps)} req/s` : 'load: not measured'})`
          : 'not measured',
      );
    }
    if (db.database === 'mysql') {
      for (const [scenarioName, label] of [
        ['doc-list-field-select', 'select field, typical user'],
        ['doc-list-field-range', 'number range, typical user'],
        ['doc-list-field-select-reader', 'select field, reader of everything'],
        ['doc-list-field-range-reader', 'number range, reader of everything'],
      ] as const) {
        const s = scenario(scenarioName);
        add(
          `${scenarioName}-p50`,
          `List filtered by a custom field (${label}): p50 <= 30 ms at ${db.rows} documents (one request at a time)`,
          s?.service.p50 ?? NaN,
          (v) => v <= 30,
          s ? `${fmt(s.service.p50, 2)} ms (p99 ${fmt(s.service.p99, 1)} ms)` : 'not measured',
        );
      }
    }
    ratioTarget('doc-get', 'GET /api/documents/{id}', 0.85);
    const transfer = (transferName: string) => db.transfers.find((t) => t.name === transferName);
    const upload = transfer('doc-upload');
    add(
      'doc-upload',
      `Uploads (concurrent, ${fmt(db.uploadBytes / 1048576, 2)} MiB) req/s >= 0.8 x plain fastify + multipart baseline`,
      upload?.rpsRatio ?? NaN,
      (v) => v >= 0.8,
      upload
        ? `${fmtRatio(upload.rpsRatio)} (${fmt(upload.service.rps)} vs ${fmt(upload.baseline.rps)} uploads/s, p50 ${fmt(upload.service.p50, 1)} vs ${fmt(upload.baseline.p50, 1)} ms)`
        : 'not measured',
    );
    const big = db.bigUpload;
    add(
      'doc-upload-big-rss',
      `One ${big ? Math.round(big.service.bytes / 1048576) : '?'} MiB upload: service RSS growth <= 64 MB`,
      big?.service.growthMb ?? NaN,
      (v) => v <= 64 && big?.service.status === 201,
      big
        ? `${fmt(big.service.growthMb, 0)} MB (${fmt(big.service.rssBeforeMb, 0)} -> ${fmt(big.service.peakRssMb, 0)} MB, status ${big.service.status}, ${fmt(big.service.seconds, 1)} s; baseline growth ${fmt(big.baseline.growthMb, 0)} MB, ${fmt(big.baseline.seconds, 1)} s)`
        : 'not measured',
    );
    const download = transfer('doc-download');
    add(
      'doc-download',
      `Download of a ${fmt(db.downloadBytes / 1048576, 0)} MiB file MiB/s >= 0.9 x baseline (createReadStream)`,
      download?.throughputRatio ?? NaN,
      (v) => v >= 0.9,
      download
        ? `${fmtRatio(download.throughputRatio)} (${fmt(download.service.mibPerSecond)} vs ${fmt(download.baseline.mibPerSecond)} MiB/s)`
        : 'not measured',
    );
    const range = transfer('doc-range');
    add(
      'doc-range',
      'Range: last 1 KiB of the big file p50 <= 2 ms',
      range?.service.p50 ?? NaN,
      (v) => v <= 2,
      range
        ? `${fmt(range.service.p50, 2)} ms (baseline ${fmt(range.baseline.p50, 2)} ms; ${fmt(range.service.rps)} vs ${fmt(range.baseline.rps)} req/s)`
        : 'not measured',
    );
  }
  return targets;
}

/** Rows for the bench's scenario table (same columns as report.ts's HEADER). */
export function documentRows(documents: DocumentResults | undefined): string[][] {
  const out: string[][] = [];
  for (const db of [documents?.mysql, documents?.sqlite]) {
    if (!db) continue;
    const row = (s: ScenarioResult) => [
      s.name,
      db.database,
      `${fmt(s.service.rps)} [${fmt(s.service.rpsRange[0])}-${fmt(s.service.rpsRange[1])}]`,
      s.baseline ? `${fmt(s.baseline.rps)} [${fmt(s.baseline.rpsRange[0])}-${fmt(s.baseline.rpsRange[1])}]` : '-',
      fmtRatio(s.rpsRatio),
      fmt(s.service.p50, 2),
      fmt(s.service.p99, 2),
      s.baseline ? fmt(s.baseline.p99, 2) : '-',
      fmtRatio(s.p99Ratio),
      `${fmt(s.service.cpuPerRequestUs, 0)} / ${s.baseline ? fmt(s.baseline.cpuPerRequestUs, 0) : '-'}`,
      fmtRatio(s.cpuRatio),
      `${fmt(s.service.peakRssMb, 0)} / ${s.baseline ? fmt(s.baseline.peakRssMb, 0) : '-'}`,
      fmt(s.service.lagP99, 1),
    ];
    for (const growth of db.growth) out.push(row({ ...growth.stage1, name: `${growth.name} @${growth.stage1Rows}` }));
    for (const s of db.scenarios) out.push(row(s));
    for (const t of db.transfers) {
      const pick = (role: 'service' | 'baseline') => t.runs[role].map((m) => m.result.rps);
      const cpu = (role: 'service' | 'baseline') => t.runs[role].map((m) => m.cpuPerRequestUs);
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
      out.push([
        `${t.name} (${fmt(t.service.mibPerSecond)} / ${fmt(t.baseline.mibPerSecond)} MiB/s)`,
        db.database,
        `${fmt(t.service.rps)} [${fmt(Math.min(...pick('service')))}-${fmt(Math.max(...pick('service')))}]`,
        `${fmt(t.baseline.rps)} [${fmt(Math.min(...pick('baseline')))}-${fmt(Math.max(...pick('baseline')))}]`,
        fmtRatio(t.rpsRatio),
        fmt(t.service.p50, 2),
        fmt(t.service.p99, 2),
        fmt(t.baseline.p99, 2),
        fmtRatio(t.service.p99 / t.baseline.p99),
        `${fmt(median(cpu('service')), 0)} / ${fmt(median(cpu('baseline')), 0)}`,
        fmtRatio(median(cpu('service')) / median(cpu('baseline'))),
        `${fmt(t.service.peakRssMb, 0)} / ${fmt(t.baseline.peakRssMb, 0)}`,
        '-',
      ]);
    }
  }
  return out;
}

/** Markdown notes of the documents phase: load times, checks, plans. */
export function documentMarkdown(documents: DocumentResults | undefined): string[] {
  const out: string[] = [];
  for (const db of [documents?.mysql, documents?.sqlite]) {
    if (!db) continue;
    out.push(`## Documents (${NAMES[db.database]}, ${db.rows} documents in ${db.projects} projects)`);
    out.push('');
    out.push(
      `Load: ${Object.entries(db.load)
        .map(([k, v]) => `${k} ${v.rows} rows in ${v.seconds.toFixed(1)} s (${Math.round(v.rowsPerSecond)}/s)`)
        .join('; ')}; total ${db.loadSeconds.toFixed(0)} s.`,
    );
    if (db.sizes?.documents) {
      const d = db.sizes.documents;
      const s = db.sizes.document_search;
      out.push(
        `Sizes: documents data ${fmt(d.dataMb, 0)} MB + indexes ${fmt(d.indexMb, 0)} MB` +
          (s ? `; document_search (FULLTEXT) ${fmt(s.dataMb + s.indexMb, 0)} MB` : '') +
          (db.bufferPoolMb ? `; innodb_buffer_pool_size ${fmt(db.bufferPoolMb, 0)} MiB.` : '.'),
      );
    }
    out.push('');
    for (const [name, check] of Object.entries(db.checks))
      out.push(`- ${name}: response check against the baseline: ${check}`);
    for (const plan of db.listPlans ?? []) {
      out.push(`- ${plan.scenario}, ${plan.server}: ${plan.statements.join(',')} statements per request`);
      for (const cost of plan.costs) {
        const c = cost.counters;
        const reads = c ? c.Handler_read_key + c.Handler_read_next + c.Handler_read_prev + c.Handler_read_first : NaN;
        out.push(
          `  - \`${cost.sql.replace(/\s+/g, ' ').slice(0, 160)}…\`` +
            (c
              ? `: tmp tables ${c.Created_tmp_tables} (on disk ${c.Created_tmp_disk_tables}), index reads ${reads}, rnd ${c.Handler_read_rnd}, rnd_next ${c.Handler_read_rnd_next}`
              : ''),
        );
        for (const step of cost.explain ?? []) {
          out.push(
            `    - ${['id', 'select_type', 'table', 'type', 'key', 'rows', 'Extra'].map((k) => `${k}=${JSON.stringify(step[k] ?? '')}`).join(' ')}`,
          );
        }
      }
    }
    if (db.bigUpload) {
      const { service, baseline } = db.bigUpload;
      out.push(
        `- Big upload (${Math.round(service.bytes / 1048576)} MiB): service ${fmt(service.seconds, 1)} s, RSS ${fmt(service.rssBeforeMb, 0)} -> ${fmt(service.peakRssMb, 0)} MB; baseline ${fmt(baseline.seconds, 1)} s, RSS ${fmt(baseline.rssBeforeMb, 0)} -> ${fmt(baseline.peakRssMb, 0)} MB.`,
      );
    }
    out.push('');
  }
  return out;
}
