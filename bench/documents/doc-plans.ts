// The document list's statements on MariaDB, per request of each list scenario: how many a request
// sends (counted by bench/query-proxy.ts in front of the database), and for each SELECT the server
// counters it moves when run again alone (SHOW SESSION STATUS deltas: on-disk and in-memory
// temporary tables, index entries read) and its EXPLAIN.
import type { Connection } from 'mysql2/promise';
import type { BenchConfig } from '../config.js';
import { adminConnection } from '../load-mysql.js';
import { QueryProxy } from '../query-proxy.js';
import type { Scenario } from '../scenarios.js';
import type { ServerHandle } from '../servers.js';
import { httpJson, log, sleep } from '../util.js';

const COUNTERS = [
  'Created_tmp_disk_tables',
  'Created_tmp_tables',
  'Handler_read_key',
  'Handler_read_next',
  'Handler_read_prev',
  'Handler_read_first',
  'Handler_read_rnd',
  'Handler_read_rnd_next',
] as const;
type Counters = Record<(typeof COUNTERS)[number], number>;

export interface StatementCost {
  sql: string;
  /** Counter deltas of running it once more, alone (a SHOW STATUS pair's own share subtracted). */
  counters?: Counters;
  explain?: Record<string, unknown>[];
}

export interface ListPlanResult {
  scenario: string;
  server: string;
  /** Statements per request over 5 requests (after one warm-up). */
  statements: number[];
  costs: StatementCost[];
}

/** Tables only background work reads while a list request runs (the proxy sees every server's statements). */
const BACKGROUND = /\b(outbox_events|jobs|job_leases|webhook_deliveries|pending_files|saved_search_matches)\b/;

async function counters(connection: Connection): Promise<Counters> {
  const [rows] = (await connection.query(
    `SHOW SESSION STATUS WHERE Variable_name IN (${COUNTERS.map((name) => `'${name}'`).join(', ')})`,
  )) as unknown as [{ Variable_name: string; Value: string }[]];
  return Object.fromEntries(rows.map((row) => [row.Variable_name, Number(row.Value)])) as Counters;
}

async function deltaOf(connection: Connection, sql: string): Promise<Counters> {
  const before = await counters(connection);
  await connection.query(sql);
  const after = await counters(connection);
  return Object.fromEntries(COUNTERS.map((name) => [name, after[name] - before[name]])) as Counters;
}

/** The counters a statement moves: its delta minus that of SELECT 1 between the same SHOW STATUS pair. */
async function costOf(connection: Connection, sql: string): Promise<Counters> {
  const idle = await deltaOf(connection, 'SELECT 1');
  const used = await deltaOf(connection, sql);
  return Object.fromEntries(COUNTERS.map((name) => [name, used[name] - idle[name]])) as Counters;
}

/**
 * Runs `start(databaseUrl)` with the databases's URL pointing at a query proxy, sends each scenario's
 * first request to every server it started, and measures the statements it sent.
 */
export async function measureListPlans(
  config: BenchConfig,
  databaseUrlFor: (port: number) => string,
  start: (databaseUrl: string) => Promise<ServerHandle[]>,
  stop: () => Promise<void>,
  scenarios: Scenario[],
): Promise<ListPlanResult[]> {
  const proxy = new QueryProxy();
  const port = await proxy.start(config.mysqlHost, config.mysqlPort);
  const results: ListPlanResult[] = [];
  const connection = await adminConnection(config, config.mysqlDatabase);
  try {
    const servers = await start(databaseUrlFor(port));
    for (const scenario of scenarios) {
      const spec = scenario.job();
      const [path, tokenIndex] = spec.items[0];
      for (const server of servers) {
        if (scenario.serviceOnly && server.name === 'baseline') continue;
        const send = async () => {
          const answer = await httpJson(server.url + path, {
            headers: { authorization: `Bearer ${spec.tokens[tokenIndex]}` },
          });
          if (answer.status !== 200) throw new Error(`${server.name} ${path}: ${answer.status}`);
        };
        await send();
        const result: ListPlanResult = { scenario: scenario.name, server: server.name, statements: [], costs: [] };
        let sqls: string[] = [];
        for (let i = 0; i < 5; i++) {
          proxy.reset();
          await send();
          await sleep(5);
          const all = proxy.statements();
          const delivery = QueryProxy.isDeliveryWork(all);
          // The servers' pollers (outbox, job queue and leases, webhook deliveries) are not the request's.
          const captured = all.filter(
            (command, index) => !delivery[index] && command.command !== 'PING' && !BACKGROUND.test(command.sql ?? ''),
          );
          result.statements.push(captured.length);
          sqls = captured.map((command) => command.sql ?? command.command);
        }
        for (const sql of sqls) {
          const cost: StatementCost = { sql };
          if (/^\s*SELECT/i.test(sql)) {
            try {
              cost.counters = await costOf(connection, sql);
              const [plan] = (await connection.query(`EXPLAIN ${sql}`)) as unknown as [Record<string, unknown>[]];
              cost.explain = plan;
            } catch (error) {
              log(`  (could not run it again: ${(error as Error).message.slice(0, 200)})`);
            }
          }
          result.costs.push(cost);
        }
        const disk = result.costs.reduce((sum, cost) => sum + (cost.counters?.Created_tmp_disk_tables ?? 0), 0);
        const reads = result.costs.reduce(
          (sum, cost) =>
            sum +
            (cost.counters
              ? cost.counters.Handler_read_key +
                cost.counters.Handler_read_next +
                cost.counters.Handler_read_prev +
                cost.counters.Handler_read_first
              : 0),
          0,
        );
        log(
          `  ${scenario.name} ${server.name}: ${result.statements.join(',')} statements/request, ` +
            `${disk} on-disk temporary tables, ${reads} index reads (Handler_read_key+next+prev+first)`,
        );
        results.push(result);
      }
    }
  } finally {
    await stop();
    await connection.end();
    await proxy.stop();
  }
  return results;
}
