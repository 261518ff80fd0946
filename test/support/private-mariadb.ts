import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort } from './service-process.js';

const INSTALL_DB = '/usr/bin/mariadb-install-db';
const SERVER = '/usr/sbin/mariadbd';

/** The binaries, and Linux's /proc, which freeze() reads to know the server is really stopped. */
export function privateMariaDbAvailable(): boolean {
  return existsSync(INSTALL_DB) && existsSync(SERVER) && existsSync('/proc/self/task');
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
    const child = spawn(
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
    this.child = child;
    // A generous bound for a loaded machine; readiness (a connection) ends the wait sooner.
    const deadline = Date.now() + 120_000;
    for (;;) {
      // A server that exited (its port taken meanwhile, say) must not be waited for, nor mistaken
      // for whatever else answers on the port.
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`private MariaDB exited while starting: ${this.log()}`);
      }
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
        if (Date.now() > deadline) {
          await this.kill();
          throw new Error(`private MariaDB did not start within 120 s: ${this.log()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  get running(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Hard stop, as a crash or a network partition would look to the service. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Freezes the server: connections stay open but nothing answers. Resolves only once every
   * thread of the server is stopped: kill(2) returns before the stop reaches the threads, and until
   * then a connection thread can still answer queries (on a busy machine, for about half the
   * queries sent right after SIGSTOP), so a test could otherwise get its answer from a "frozen" server.
   */
  async freeze(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.running) {
      throw new Error('private MariaDB is not running; nothing to freeze');
    }
    child.kill('SIGSTOP');
    const deadline = Date.now() + 10_000;
    while (!allThreadsStopped(child.pid)) {
      if (Date.now() > deadline) throw new Error('private MariaDB did not stop within 10 s of SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
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

/** Linux: true when every thread of the process is in the stopped state ('T' in /proc/.../stat). */
function allThreadsStopped(pid: number): boolean {
  const states = readdirSync(`/proc/${pid}/task`).map((tid) => {
    try {
      // The state follows the command name, which is in parentheses and may itself contain ") ".
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return 'X'; // the thread exited meanwhile
    }
  });
  return states.every((state) => state === 'T' || state === 'X' || state === 'Z');
}
