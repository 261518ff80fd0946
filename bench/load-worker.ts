// Load generator, run as a separate process (child_process.fork) so it never shares the event loop
// of the server under test. Receives a LoadJob over IPC, optionally warms up, waits for "go",
// runs autocannon for the given duration and sends back a LoadResult.
import { createRequire } from 'node:module';
import type { LoadJob, LoadResult } from './load-types.js';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: unknown) => AutocannonRequest;
}

interface AutocannonInstance {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
  ): void;
  on(event: 'reqError', listener: (error: Error) => void): void;
  on(event: 'done', listener: (result: AutocannonResult) => void): void;
  stop(): void;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
}

type Autocannon = (
  options: Record<string, unknown>,
  callback?: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

function run(job: LoadJob, duration: number, record: boolean): Promise<LoadResult> {
  let counter = 0;
  let bodyCounter = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let firstError: string | undefined;
  const request: AutocannonRequest = {
    method: job.method,
    setupRequest(req) {
      const [path, tokenIndex, body] = job.items[counter++ % job.items.length];
      const headers: Record<string, string> = {};
      if (tokenIndex >= 0) headers.authorization = `Bearer ${job.tokens[tokenIndex]}`;
      let payload = body;
      if (payload === undefined && job.bodyTemplate)
        payload = job.bodyTemplate.replace('{n}', `${job.tag}-${bodyCounter++}`);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      return { ...req, method: job.method, path, headers, body: payload };
    },
  };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration,
        pipelining: 1,
        timeout: 30,
        requests: [request],
        ...(job.overallRate ? { overallRate: job.overallRate } : {}),
      },
      (error) => {
        if (error) reject(error);
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (record) latencies.push(responseTime);
    });
    instance.on('reqError', (error) => {
      firstError ??= error.message;
    });
    instance.on('done', (result) => {
      const seconds = (performance.now() - started) / 1000;
      const sorted = Float64Array.from(latencies).sort();
      const at = (p: number) =>
        sorted.length
          ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
          : NaN;
      let ok = 0;
      let total = 0;
      for (const [code, count] of Object.entries(statuses)) {
        total += count;
        if (code.startsWith('2')) ok += count;
      }
      const mean = sorted.length ? sorted.reduce((sum, value) => sum + value, 0) / sorted.length : NaN;
      resolve({
        seconds: result.duration || seconds,
        requests: total,
        ok,
        rps: ok / (result.duration || seconds),
        statuses,
        errors: result.errors,
        timeouts: result.timeouts,
        firstError,
        latency: { p50: at(50), p90: at(90), p99: at(99), max: sorted.length ? sorted[sorted.length - 1] : NaN, mean },
        autocannonP99: result.latency.p99,
      });
    });
  });
}

let job: LoadJob | undefined;
let goResolve: (() => void) | undefined;
const go = new Promise<void>((resolve) => (goResolve = resolve));

process.on('message', (message: { type: string; job?: LoadJob }) => {
  if (message.type === 'job' && message.job) {
    job = message.job;
    void main(job);
  } else if (message.type === 'go') {
    goResolve?.();
  }
});

async function main(current: LoadJob): Promise<void> {
  try {
    if (current.warmup > 0) await run(current, current.warmup, false);
    process.send?.({ type: 'warm' });
    if (current.waitForGo) await go;
    const result = await run(current, current.duration, true);
    process.send?.({ type: 'result', result }, () => process.exit(0));
  } catch (error) {
    process.send?.({ type: 'error', message: (error as Error).stack ?? String(error) }, () => process.exit(1));
  }
}
