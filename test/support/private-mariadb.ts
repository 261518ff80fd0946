import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort } from './service-process.js';

const INSTALL_DB = '/usr/bin/mariadb-install-db';
const SERVER = '/usr/sbin/mariadbd';

export function privateMariaDbAvailable(): boolean {
  return existsSync(INSTALL_DB) && existsSync(SERVER);
}

/**
 * A MariaDB server of the test's own (own data directory and port), so fault tests can stop,
 * freeze and restart it without touching the shared server other suites use.
 */
export class PrivateMariaDb {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'dms-mariadb-'));
  port = 0;

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/dms_fault_test`;
  }

  async install(): Promise<void> {
    this.port = await freePort();
    execFileSync(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        '--user=root',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    );
    await this.start();
    const connection = await createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
    await connection.query('CREATE DATABASE dms_fault_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await connection.end();
  }

  async start(): Promise<void> {
    this.child = spawn(
      SERVER,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        '--user=root',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const connection = await createConnection({
          host: '127.0.0.1',
          port: this.port,
          user: 'root',
          connectTimeout: 500,
        });
        await connection.end();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`private MariaDB did not start: ${this.log()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** Hard stop, as a crash or a network partition would look to the service. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Freezes the server: connections stay open but nothing answers. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private log(): string {
    const file = join(this.dir, 'data', `${this.child?.pid}.err`);
    return existsSync(file) ? readFileSync(file, 'utf8').slice(-2000) : '';
  }
}
