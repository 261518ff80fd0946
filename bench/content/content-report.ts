// Targets and the results file of the content phases (issue 28): bench/results/content.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Target } from '../report.js';
import { fmt, fmtRatio } from '../util.js';
import type { ContentPhaseResults } from './content-phase.js';

export type ContentResults = Partial<Record<'mysql' | 'sqlite', ContentPhaseResults>>;

const NAMES = { mysql: 'MariaDB', sqlite: 'SQLite' } as const;

export function contentTargets(content: ContentResults): Target[] {
  const targets: Target[] = [];
  for (const db of [content.mysql, content.sqlite]) {
    if (!db) continue;
    const name = NAMES[db.database];
    const add = (id: string, description: string, value: number, ok: (v: number) => boolean, shown: string) =>
      targets.push({
        id: `${id}-${db.database}`,
        description: `${name}: ${description}`,
        measured: shown,
        met: Number.isFinite(value) ? ok(value) : null,
      });
    const latency = db.scenarios.find((s) => s.name === 'content-search-latency');
    add(
      'content-search-p50',
      `content search (${db.rows} documents, ~${db.textChars} characters each), one at a time: p50 <= 50 ms`,
      latency?.service.p50 ?? NaN,
      (v) => v <= 50,
      latency
        ? `${fmt(latency.service.p50, 1)} ms (baseline ${fmt(latency.baseline?.p50 ?? NaN, 1)} ms)`
        : 'not measured',
    );
    add(
      'content-search-ratio',
      'content search req/s (one at a time) >= 0.85 x baseline (same SQL)',
      latency?.rpsRatio ?? NaN,
      (v) => v >= 0.85,
      latency
        ? `${fmtRatio(latency.rpsRatio)} (${fmt(latency.service.rps)} vs ${fmt(latency.baseline?.rps ?? NaN)} req/s)`
        : 'not measured',
    );
    for (const extraction of db.extraction) {
      add(
        `${extraction.name}-p99`,
        `list p99 while extracting (${extraction.title}) <= 2 x idle`,
        extraction.p99Ratio,
        (v) => v <= 2,
        `${fmtRatio(extraction.p99Ratio)} (${fmt(extraction.during.load.latency.p99, 1)} vs ${fmt(extraction.idle.load.latency.p99, 1)} ms); ${fmt(extraction.pagesPerSecond, 2)} pages/s`,
      );
    }
  }
  return targets;
}

export function contentMarkdown(content: ContentResults, machine: Record<string, unknown>, targets: Target[]): string {
  const out: string[] = ['# Content bench (issue 28)', ''];
  out.push(
    `Date ${new Date().toISOString()}; git ${String(machine.git)}; ${String(machine.cpuModel)}, ${String(machine.cores)} cores; load average at start ${String(machine.loadAtStart)}, at end ${String(machine.loadAtEnd)}.`,
    '',
  );
  out.push('| Target | Measured | Met |', '| --- | --- | --- |');
  for (const t of targets)
    out.push(`| ${t.description} | ${t.measured} | ${t.met === null ? '-' : t.met ? 'yes' : '**no**'} |`);
  out.push('');
  for (const db of [content.mysql, content.sqlite]) {
    if (!db) continue;
    out.push(
      `## ${NAMES[db.database]}: ${db.rows} documents, ${db.projects} projects, ~${db.textChars} characters of text each`,
      '',
    );
    out.push(
      `Load: ${Object.entries(db.load)
        .map(([k, v]) => `${k} ${v.rows} rows in ${v.seconds.toFixed(1)} s`)
        .join('; ')}; total ${db.loadSeconds.toFixed(0)} s.`,
    );
    const search = db.sizes?.document_search;
    if (search)
      out.push(
        `document_search (with FT_document_search): data ${fmt(search.dataMb, 0)} MB + indexes ${fmt(search.indexMb, 0)} MB.`,
      );
    out.push(
      `Snippets of one 20-result page (every field), computed in the bench process: ${fmt(db.snippetPageMs, 2)} ms.`,
      '',
    );
    out.push(
      '| Scenario | service req/s | baseline req/s | ratio | service p50 / p99 ms | baseline p50 / p99 ms |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const s of db.scenarios) {
      out.push(
        `| ${s.name} | ${fmt(s.service.rps)} | ${fmt(s.baseline?.rps ?? NaN)} | ${fmtRatio(s.rpsRatio)} | ${fmt(s.service.p50, 1)} / ${fmt(s.service.p99, 1)} | ${fmt(s.baseline?.p50 ?? NaN, 1)} / ${fmt(s.baseline?.p99 ?? NaN, 1)} |`,
      );
    }
    out.push('');
    for (const e of db.extraction) {
      out.push(
        `- ${e.name} (${e.title}): ${e.files} file(s), ${e.pages} pages in ${fmt(e.seconds, 1)} s of extraction = **${fmt(e.pagesPerSecond, 2)} pages/s** (${e.statuses.join(', ')}); ` +
          `list at a fixed rate: p99 ${fmt(e.idle.load.latency.p99, 1)} ms idle, ${fmt(e.during.load.latency.p99, 1)} ms during (${fmtRatio(e.p99Ratio)}), p50 ${fmt(e.idle.load.latency.p50, 1)} / ${fmt(e.during.load.latency.p50, 1)} ms.`,
      );
    }
    for (const [name, check] of Object.entries(db.checks)) out.push(`- ${name}: ${check}`);
    for (const plan of db.statements ?? []) {
      out.push(`- ${plan.server}: ${plan.statements.join(',')} statements per search`);
      for (const cost of plan.costs) {
        out.push(`  - \`${cost.sql.replace(/\s+/g, ' ').slice(0, 200)}${cost.sql.length > 200 ? '…' : ''}\``);
        for (const step of cost.explain ?? []) {
          out.push(
            `    - ${['id', 'select_type', 'table', 'type', 'key', 'rows', 'Extra'].map((k) => `${k}=${JSON.stringify(step[k] ?? '')}`).join(' ')}`,
          );
        }
      }
    }
    out.push('');
  }
  return out.join('\n');
}

export function writeContentResults(
  projectRoot: string,
  content: ContentResults,
  machine: Record<string, unknown>,
): Target[] {
  const targets = contentTargets(content);
  const dir = join(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'content.json'),
    JSON.stringify({ date: new Date().toISOString(), machine, targets, content }, null, 2) + '\n',
  );
  writeFileSync(join(dir, 'content.md'), contentMarkdown(content, machine, targets) + '\n');
  return targets;
}
