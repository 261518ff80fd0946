import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { freePort } from './service-process.js';

export const HAPROXY = '/usr/sbin/haproxy';
const CONFIG = resolvePath('deploy/haproxy/haproxy.cfg');

export function haproxyAvailable(): boolean {
  return existsSync(HAPROXY);
}

/** HAProxy run with the repository's deploy/haproxy/haproxy.cfg, addresses given by its environment. */
export class HaproxyProcess {
  private child?: ChildProcess;
  httpPort = 0;
  galeraPort = 0;

  /** The running proxy's process id (the scale bench counts its CPU). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /** Ports first, so that instances can be told the Galera frontend before HAProxy starts. */
  async choosePorts(): Promise<void> {
    this.httpPort = await freePort();
    this.galeraPort = await freePort();
  }

  async start(apps: string[], galeraNodes: string[]): Promise<void> {
    if (!this.httpPort) await this.choosePorts();
    // A slot without an instance points at a port nobody listens on: its check keeps it down.
    const idle = `127.0.0.1:${await freePort()}`;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      DMS_HTTP_BIND: `127.0.0.1:${this.httpPort}`,
      DMS_GALERA_BIND: `127.0.0.1:${this.galeraPort}`,
      DMS_GALERA_CHECK: resolvePath('deploy/haproxy/galera-check.sh'),
    };
    for (let slot = 0; slot < 3; slot++) {
      env[`DMS_APP${slot + 1}`] = apps[slot] ?? idle;
      env[`DMS_GALERA${slot + 1}`] = galeraNodes[slot] ?? idle;
    }
    const child = spawn(HAPROXY, ['-f', CONFIG, '-db'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const deadline = Date.now() + 30_000;
    while (!(await listening(this.httpPort))) {
      if (child.exitCode !== null) throw new Error(`haproxy exited while starting: ${errors}`);
      if (Date.now() > deadline) throw new Error('haproxy did not listen within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
