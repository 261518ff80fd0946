// Load generator for uploads and downloads, forked like bench/load-worker.ts so it never shares the
// server's event loop. node:http with a keep-alive agent: bodies are streamed from memory (uploads)
// or counted and dropped (downloads), so the client costs little beside the servers on the same cores.
import { randomBytes } from 'node:crypto';
import { Agent, request, type IncomingMessage } from 'node:http';
import { percentile } from '../util.js';

export interface TransferJob {
  kind: 'upload' | 'download';
  url: string;
  path: string;
  token: string;
  connections: number;
  /** Measured seconds; 0 with `once`: exactly one request. */
  duration: number;
  warmup: number;
  once?: boolean;
  /** Uploads: file size and the form's text fields (sent before the file part). */
  fileBytes?: number;
  fields?: Record<string, string>;
  /** Downloads: extra request headers (Range). */
  headers?: Record<string, string>;
  tag: string;
}

export interface TransferResult {
  seconds: number;
  requests: number;
  ok: number;
  rps: number;
  /** Body bytes sent (uploads) or received (downloads) by 2xx exchanges, per second, in MiB. */
  mibPerSecond: number;
  statuses: Record<string, number>;
  firstError?: string;
  /** Milliseconds, exact over every exchange of the measured run. */
  latency: { p50: number; p90: number; p99: number; max: number };
}

const CHUNK = 1024 * 1024;
// Shared filler; each file starts with a unique prefix so no two uploads store the same bytes.
const filler = randomBytes(CHUNK);

function exchange(
  job: TransferJob,
  agent: Agent,
  serial: number,
): Promise<{ status: number; bytes: number; error?: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${job.token}`, ...job.headers };
    let head: Buffer | undefined;
    let tail: Buffer | undefined;
    const fileBytes = job.fileBytes ?? 0;
    if (job.kind === 'upload') {
      const boundary = `----docbench${randomBytes(8).toString('hex')}`;
      const fields = Object.entries(job.fields ?? {})
        .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('');
      head = Buffer.from(
        `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench-${job.tag}-${serial}.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      headers['content-length'] = String(head.length + fileBytes + tail.length);
    }
    let settled = false;
    const done = (status: number, bytes: number, error?: string) => {
      if (settled) return;
      settled = true;
      resolve({ status, bytes, error });
    };
    const req = request(
      job.url + job.path,
      { method: job.kind === 'upload' ? 'POST' : 'GET', agent, headers },
      (response: IncomingMessage) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => (received += chunk.length));
        response.on('end', () => done(response.statusCode ?? 0, job.kind === 'upload' ? fileBytes : received));
        response.on('error', (error) => done(0, 0, error.message));
      },
    );
    req.on('error', (error) => done(0, 0, error.message));
    if (job.kind !== 'upload') {
      req.end();
      return;
    }
    void (async () => {
      const write = (chunk: Buffer) =>
        req.write(chunk) ? Promise.resolve() : new Promise<void>((drained) => req.once('drain', drained));
      await write(head!);
      const unique = Buffer.from(`${job.tag}:${serial}:${Date.now()}:`.padEnd(64, '.'));
      let left = fileBytes;
      let first = true;
      while (left > 0 && !req.destroyed) {
        const size = Math.min(CHUNK, left);
        if (first) {
          first = false;
          const chunk = Buffer.from(filler.subarray(0, size));
          unique.copy(chunk, 0, 0, Math.min(unique.length, size));
          await write(chunk);
        } else {
          await write(filler.subarray(0, size));
        }
        left -= size;
      }
      req.end(tail);
    })();
  });
}

async function run(job: TransferJob, seconds: number, record: boolean): Promise<TransferResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let firstError: string | undefined;
  let bytes = 0;
  let serial = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async () => {
    do {
      const t0 = performance.now();
      const result = await exchange(job, agent, serial++);
      const ms = performance.now() - t0;
      statuses[result.status] = (statuses[result.status] ?? 0) + 1;
      if (result.error) firstError ??= result.error;
      if (result.status >= 200 && result.status < 300) bytes += result.bytes;
      if (record) latencies.push(ms);
    } while (!job.once && performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: job.once ? 1 : job.connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  let requests = 0;
  let ok = 0;
  for (const [code, count] of Object.entries(statuses)) {
    requests += count;
    if (code.startsWith('2')) ok += count;
  }
  return {
    seconds: elapsed,
    requests,
    ok,
    rps: ok / elapsed,
    mibPerSecond: bytes / 1048576 / elapsed,
    statuses,
    firstError,
    latency: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
    },
  };
}

let goResolve: (() => void) | undefined;
const go = new Promise<void>((resolve) => (goResolve = resolve));

process.on('message', (message: { type: string; job?: TransferJob }) => {
  if (message.type === 'job' && message.job) void main(message.job);
  else if (message.type === 'go') goResolve?.();
});

async function main(job: TransferJob): Promise<void> {
  try {
    if (job.warmup > 0 && !job.once) await run(job, job.warmup, false);
    process.send?.({ type: 'warm' });
    await go;
    const result = await run(job, job.duration, true);
    process.send?.({ type: 'result', result }, () => process.exit(0));
  } catch (error) {
    process.send?.({ type: 'error', message: (error as Error).stack ?? String(error) }, () => process.exit(1));
  }
}
