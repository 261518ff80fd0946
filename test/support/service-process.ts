import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { productionNodeFlags } from '../../bench/servers.js';

/** The Node options `npm run start:prod` passes ("node <options> dist/src/main.js"); the bench reads them the same way. */
export const productionNodeOptions = (): string[] => productionNodeFlags(process.cwd());

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** stdout and stderr as they arrived. */
  output(): string;
  /** stdout alone: the service's log lines. */
  stdout(): string;
  exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Every service process started and not yet exited: `stopServiceProcesses` ends them (call it in afterAll). */
const running = new Set<ChildProcess>();

/** Kills every service process still running (SIGKILL) and waits for their exit. */
export async function stopServiceProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** How long a start may take on a loaded machine; readiness (a 200 from /health/live) ends the wait sooner. */
const START_BOUND_MS = 120_000;

/**
 * Runs the built service as a real process, started as `npm run start:prod` starts it (same Node
 * options), and waits until it answers.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  let output = '';
  let stdout = '';
  const child = spawn(process.execPath, [...productionNodeOptions(), 'dist/src/main.js'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const giveUp = Date.now() + START_BOUND_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${output}`);
    try {
      if ((await fetch(`${url}/health/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > giveUp) {
      child.kill('SIGKILL');
      throw new Error(`service did not answer /health/live within ${START_BOUND_MS} ms:\n${output}`);
    }
    // Polling interval, not a wait for something to happen.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, output: () => output, stdout: () => stdout, exited };
}
