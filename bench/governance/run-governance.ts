// npm run bench:governance: the governance part of `npm run bench` alone (see bench/README.md),
// from the built dist/; writes bench/results/governance.{json,md}.
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBenchConfig } from '../config.js';
import { killAllChildren, productionNodeFlags } from '../servers.js';
import { log } from '../util.js';
import {
  governanceMarkdown,
  loadGovernanceConfig,
  runGovernancePhase,
  type GovernanceResult,
} from './governance-phase.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Runs the phase on each database the bench configuration enables and writes the results. */
export async function runGovernance(root: string, serviceMain?: string): Promise<GovernanceResult[]> {
  const config = loadBenchConfig();
  const gov = loadGovernanceConfig(config);
  log(`Governance: ${JSON.stringify(gov)}`);
  const results: GovernanceResult[] = [];
  for (const kind of ['mysql', 'sqlite'] as const) {
    if (kind === 'mysql' ? !config.mysql : !config.sqlite) continue;
    results.push(
      await runGovernancePhase({
        kind,
        config,
        gov,
        root,
        serviceMain: serviceMain ?? join(root, 'dist/src/main.js'),
        probe: join(root, 'dist/bench/probe.js'),
        loadWorker: join(root, 'dist/bench/load-worker.js'),
        nodeFlags: productionNodeFlags(projectRoot),
      }),
    );
  }
  const dir = join(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const meta = { date: new Date().toISOString(), git: gitRevision() };
  writeFileSync(join(dir, 'governance.json'), `${JSON.stringify({ ...meta, gov, results }, null, 2)}\n`);
  writeFileSync(join(dir, 'governance.md'), governanceMarkdown(results, meta));
  log(`Governance results written to ${dir}/governance.md`);
  return results;
}

function gitRevision(): string {
  try {
    const options = { cwd: projectRoot, encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'ignore'] as const };
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      ...options,
      stdio: [...options.stdio],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      ...options,
      stdio: [...options.stdio],
    });
    return dirty.trim() ? `${head} (src modified)` : head;
  } catch {
    return '?';
  }
}

/** A private copy of dist/ (node_modules linked): a concurrent `npm run build` cannot pull the code from under the run. */
function snapshot(): string {
  const root = `/tmp/dms-bench-governance-${process.pid}`;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  cpSync(join(projectRoot, 'dist'), join(root, 'dist'), {
    recursive: true,
    filter: (source) => !source.endsWith('.map'),
  });
  cpSync(join(projectRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = snapshot();
  process.once('exit', () => {
    killAllChildren();
    rmSync(root, { recursive: true, force: true });
  });
  runGovernance(root).then(
    (results) => {
      for (const result of results) {
        for (const p of result.pairs) log(`${result.kind} ${p.name}: ratio ${p.ratio.toFixed(2)}`);
      }
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      killAllChildren();
      process.exit(1);
    },
  );
}
