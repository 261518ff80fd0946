import { fork, type ChildProcess } from 'node:child_process';
import type { LoadJob, LoadResult } from './load-types.js';
import { track, type ProbeStats, type ServerHandle } from './servers.js';
import { cpuSeconds, procStatusKb, resetPeakRss, rssSampler } from './util.js';

/** One autocannon process (bench/load-worker.js) running one job. */
export class LoadProcess {
  private readonly child: ChildProcess;
  readonly warm: Promise<void>;
  readonly result: Promise<LoadResult>;

  constructor(workerPath: string, job: LoadJob) {
    this.child = fork(workerPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    track(this.child);
    let warmResolve: () => void = () => undefined;
    this.warm = new Promise((resolve) => (warmResolve = resolve));
    const limitMs = (job.warmup + job.duration + 90) * 1000;
    this.result = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`load worker ${job.tag} timed out`));
      }, limitMs);
      this.child.on('message', (message: { type: string; result?: LoadResult; message?: string }) => {
        if (message.type === 'warm') warmResolve();
        if (message.type === 'result' && message.result) {
          clearTimeout(timer);
          resolve(message.result);
        }
        if (message.type === 'error') {
          clearTimeout(timer);
          reject(new Error(`load worker ${job.tag}: ${message.message}`));
        }
      });
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        warmResolve();
        if (code !== 0) reject(new Error(`load worker ${job.tag} exited with ${code}`));
      });
    });
    this.result.catch(() => undefined);
    this.child.send({ type: 'job', job });
  }

  go(): void {
    this.child.send({ type: 'go' });
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

export interface Measurement {
  server: string;
  load: LoadResult;
  /** Server process CPU (all threads: event loop, libuv pool, GC) per answered request. */
  cpuPerRequestUs: number;
  cpuUtilization: number;
  /** The database server's CPU per request (MariaDB only; shared with other users of that server). */
  dbCpuPerRequestUs: number;
  peakRssMb: number;
  /** V8 heap in use at the end of the run. */
  heapUsedMb: number;
  lag: ProbeStats['lag'];
}

/** Warm up, then snapshot CPU/RSS/lag of the server around the measured run. */
export async function measure(
  server: ServerHandle,
  workerPath: string,
  job: LoadJob,
  dbPid?: number,
): Promise<Measurement> {
  const load = new LoadProcess(workerPath, { ...job, waitForGo: true });
  try {
    await load.warm;
    await server.probe('reset');
    resetPeakRss(server.pid);
    const sampler = rssSampler(server.pid);
    const cpu0 = cpuSeconds(server.pid);
    const db0 = dbPid ? cpuSeconds(dbPid) : NaN;
    load.go();
    const result = await load.result;
    const cpu1 = cpuSeconds(server.pid);
    const db1 = dbPid ? cpuSeconds(dbPid) : NaN;
    const sampled = sampler.stop();
    const hwm = procStatusKb(server.pid, 'VmHWM') / 1024;
    const probe = await server.probe('read');
    return {
      server: server.name,
      load: result,
      cpuPerRequestUs: result.ok ? ((cpu1 - cpu0) / result.ok) * 1e6 : NaN,
      cpuUtilization: (cpu1 - cpu0) / result.seconds,
      dbCpuPerRequestUs: result.ok ? ((db1 - db0) / result.ok) * 1e6 : NaN,
      peakRssMb: Math.max(sampled, Number.isFinite(hwm) ? hwm : 0),
      heapUsedMb: probe.heapUsedMb,
      lag: probe.lag,
    };
  } finally {
    load.kill();
  }
}
