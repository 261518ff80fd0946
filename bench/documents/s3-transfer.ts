// S3 transfer bench (issue 31): uploads and downloads through the service's S3 driver against
// bench/documents/s3-baseline-server.ts, which streams the same bytes with a plain
// @aws-sdk/client-s3, on the same S3 engine: BENCH_S3_ENDPOINT (+ BENCH_S3_ACCESS_KEY_ID,
// BENCH_S3_SECRET_ACCESS_KEY, BENCH_S3_REGION) or else a private Swift (test/support/swift.ts).
// Load and measurement are the documents bench's transfer worker. Run: npm run bench:s3
// (BENCH_S3_FILE_MIB, BENCH_S3_SECONDS, BENCH_S3_CONNECTIONS, BENCH_S3_ROUNDS tune it).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/storage/s3-file-store.js';
import { startSwiftS3, type SwiftS3 } from '../../test/support/swift.js';
import type { TransferJob, TransferResult } from './transfer-worker.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const MIB = 1024 * 1024;
const fileBytes = Number(process.env.BENCH_S3_FILE_MIB ?? 8) * MIB;
const seconds = Number(process.env.BENCH_S3_SECONDS ?? 10);
const connections = Number(process.env.BENCH_S3_CONNECTIONS ?? 4);
const rounds = Number(process.env.BENCH_S3_ROUNDS ?? 3);
const password = `Bench-S3-${randomBytes(8).toString('hex')}!`;
const children: ChildProcess[] = [];
const NODE_OPTIONS = ['--max-semi-space-size=8', '--max-old-space-size=256'];

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await delay(100);
  }
  throw new Error(`${url} did not answer`);
}

function measure(job: TransferJob): Promise<TransferResult> {
  const child = fork(join(here, 'transfer-worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.on('message', (message: { type: string; result?: TransferResult; message?: string }) => {
      if (message.type === 'warm') child.send({ type: 'go' });
      else if (message.type === 'result') resolve(message.result!);
      else if (message.type === 'error') reject(new Error(message.message));
    });
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`transfer worker exited with ${code}`))));
    child.send({ type: 'job', job });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

let swift: SwiftS3 | undefined;

// Interrupted: the servers this run started go with it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    void (swift?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  });
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'dms-bench-s3-'));
  try {
    const s3 = process.env.BENCH_S3_ENDPOINT
      ? {
          endpoint: process.env.BENCH_S3_ENDPOINT,
          region: process.env.BENCH_S3_REGION ?? 'us-east-1',
          accessKeyId: process.env.BENCH_S3_ACCESS_KEY_ID ?? '',
          secretAccessKey: process.env.BENCH_S3_SECRET_ACCESS_KEY ?? '',
        }
      : (swift = await startSwiftS3());
    const suffix = randomBytes(4).toString('hex');
    const serviceBucket = `dms-bench-service-${suffix}`;
    const baselineBucket = `dms-bench-baseline-${suffix}`;
    const client = createS3Client({ ...s3, bucket: serviceBucket, forcePathStyle: true, presignedDownloads: false });
    await client.send(new CreateBucketCommand({ Bucket: serviceBucket }));
    await client.send(new CreateBucketCommand({ Bucket: baselineBucket }));
    client.destroy();
    const s3Env = {
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };

    const servicePort = 18_300;
    const serviceProcess = spawn(process.execPath, [...NODE_OPTIONS, join(root, 'dist/src/main.js')], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        PATH: process.env.PATH,
        ...s3Env,
        NODE_ENV: 'development',
        PORT: String(servicePort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: `sqlite:${join(scratch, 'dms.sqlite')}`,
        JWT_SECRET: randomBytes(32).toString('hex'),
        SEED_DEMO: 'true',
        SEED_PASSWORD: password,
        STORAGE_DRIVER: 's3',
        S3_BUCKET: serviceBucket,
        UPLOAD_MAX_BYTES: String(fileBytes * 2),
        LOGIN_RATE_LIMIT_PER_IP: '100000',
      },
    });
    children.push(serviceProcess);
    const baselinePort = 18_301;
    const baseline = fork(join(here, 's3-baseline-server.js'), [], {
      // The service's production Node options (npm run start:prod), so only the code differs.
      execArgv: NODE_OPTIONS,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { PATH: process.env.PATH, ...s3Env, S3_BUCKET: baselineBucket, PORT: String(baselinePort) },
    });
    children.push(baseline);
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    const baselineUrl = `http://127.0.0.1:${baselinePort}`;
    await waitFor(`${serviceUrl}/health/ready`);
    await waitFor(`${baselineUrl}/health`);

    const login = await fetch(`${serviceUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    const { token } = (await login.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const projects = (await (await fetch(`${serviceUrl}/api/projects`, { headers: auth })).json()) as {
      projects: { id: string }[];
    };
    const types = (await (await fetch(`${serviceUrl}/api/document-types`, { headers: auth })).json()) as {
      documentTypes: { id: string }[];
    };
    const fields = { projectId: projects.projects[0].id, documentTypeId: types.documentTypes[0].id };

    // One file each to download: through the service (a document) and through the baseline (a key).
    const base = { token, connections, duration: seconds, warmup: 2 };
    const job = (
      url: string,
      kind: 'upload' | 'download',
      path: string,
      tag: string,
      extra: Partial<TransferJob> = {},
    ) => ({ ...base, url, kind, path, tag, fileBytes, ...extra }) satisfies TransferJob;
    const once = { once: true, duration: 0, warmup: 0 };
    await measure(job(serviceUrl, 'upload', '/api/documents', 'seed-service', { ...once, fields }));
    const listed = (await (
      await fetch(`${serviceUrl}/api/documents?limit=1&sort=-createdAt`, { headers: auth })
    ).json()) as {
      documents: { id: string }[];
    };
    const documentId = listed.documents[0].id;
    const seeded = await fetch(`${baselineUrl}/upload`, {
      method: 'POST',
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([randomBytes(fileBytes)]), 'seed.bin');
        return form;
      })(),
    });
    const { key } = (await seeded.json()) as { key: string };

    const scenarios = [
      {
        name: 's3-upload',
        service: job(serviceUrl, 'upload', '/api/documents', 'service', { fields }),
        baseline: job(baselineUrl, 'upload', '/upload', 'baseline'),
      },
      {
        name: 's3-download',
        service: job(serviceUrl, 'download', `/api/documents/${documentId}/content`, 'service'),
        baseline: job(baselineUrl, 'download', `/files/${key.replace('baseline/', '')}`, 'baseline'),
      },
    ];
    const report: Record<string, unknown> = {};
    for (const scenario of scenarios) {
      const ours: TransferResult[] = [];
      const plain: TransferResult[] = [];
      for (let round = 0; round < rounds; round++) {
        ours.push(await measure(scenario.service));
        plain.push(await measure(scenario.baseline));
      }
      const serviceMib = median(ours.map((r) => r.mibPerSecond));
      const baselineMib = median(plain.map((r) => r.mibPerSecond));
      const errors = [...ours, ...plain].filter((r) => r.ok !== r.requests).map((r) => r.statuses);
      report[scenario.name] = { serviceMib, baselineMib, ratio: serviceMib / baselineMib, errors };
      console.log(
        `${scenario.name.padEnd(12)} ${fileBytes / MIB} MiB files, ${connections} connections: service ` +
          `${serviceMib.toFixed(1)} MiB/s, baseline ${baselineMib.toFixed(1)} MiB/s, ratio ` +
          `${(serviceMib / baselineMib).toFixed(2)} (target >= 0.8)${errors.length ? ` ERRORS ${JSON.stringify(errors)}` : ''}`,
      );
    }
    console.log(JSON.stringify({ s3Transfer: report }));
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await swift?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
