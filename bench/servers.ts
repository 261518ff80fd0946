import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { log, procStatusKb, sleep } from './util.js';

export interface ProbeStats {
  lag: { p50: number; p99: number; max: number; mean: number };
  heapUsedMb: number;
  rssMb: number;
}

export interface ServerHandle {
  name: string;
  pid: number;
  url: string;
  startupMs: number;
  child: ChildProcess;
  probe(command: 'reset'): Promise<void>;
  probe(command: 'read'): Promise<ProbeStats>;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Kills every child this process started (by pid), e.g. on an error or Ctrl-C. */
export function killAllChildren(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  running.clear();
}

export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

export interface StartOptions {
  name: string;
  script: string;
  cwd: string;
  port: number;
  env: Record<string, string>;
  probePath: string;
  /** Node options before the script (the service gets the ones its start:prod script uses). */
  nodeFlags?: string[];
  readyPath?: string;
  timeoutMs?: number;
}

/** Starts a server with the event-loop probe preloaded; resolves once readyPath answers 200. */
export async function startServer(options: StartOptions): Promise<ServerHandle> {
  const started = performance.now();
  const args = [...(options.nodeFlags ?? []), '--import', pathToFileURL(options.probePath).href, options.script];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  track(child);
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) lines.push(line.slice(0, 500));
    }
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));

  let nextId = 1;
  const pending = new Map<number, (value: unknown) => void>();
  child.on('message', (message: { probe?: string; id?: number }) => {
    if (message?.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)!(message);
      pending.delete(message.id);
    }
  });

  const url = `http://127.0.0.1:${options.port}`;
  const deadline = started + (options.timeoutMs ?? 90_000);
  let startupMs = NaN;
  while (performance.now() < deadline) {
    if (exited) break;
    try {
      const response = await fetch(url + (options.readyPath ?? '/health/live'));
      await response.arrayBuffer();
      if (response.status === 200) {
        startupMs = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
  if (!Number.isFinite(startupMs)) {
    child.kill('SIGKILL');
    throw new Error(`${options.name} did not start (exit=${exited}). Output:\n${lines.join('\n')}`);
  }

  const handle: ServerHandle = {
    name: options.name,
    pid: child.pid!,
    url,
    startupMs,
    child,
    probe: ((command: 'reset' | 'read') =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${options.name}: probe ${command} timed out`));
        }, 5000);
        pending.set(id, (value) => {
          clearTimeout(timer);
          resolve((command === 'reset' ? undefined : value) as ProbeStats);
        });
        child.send({ probe: command, id });
      })) as ServerHandle['probe'],
    output: () => lines.join('\n'),
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timeout = sleep(8000).then(() => 'timeout');
      if ((await Promise.race([gone, timeout])) === 'timeout') {
        log(`${options.name}: no exit 8 s after SIGTERM, sending SIGKILL`);
        child.kill('SIGKILL');
        await gone;
      }
    },
  };
  return handle;
}

export function rssMb(pid: number): number {
  return procStatusKb(pid, 'VmRSS') / 1024;
}

/**
 * The Node options of package.json's start:prod script ("node <flags> dist/src/main.js"), so the
 * bench runs the service exactly as production starts it.
 */
export function productionNodeFlags(projectRoot: string): string[] {
  const manifest = JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const script = manifest.scripts?.['start:prod'] ?? '';
  const match = /^node\s+(.*?)\s*dist\/src\/main\.js$/.exec(script.trim());
  if (!match) throw new Error(`package.json start:prod is not "node [flags] dist/src/main.js": ${script}`);
  return match[1] ? match[1].split(/\s+/) : [];
}
