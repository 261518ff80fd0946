import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort } from './service-process.js';

const INSTALL_DB = '/usr/bin/mariadb-install-db';
const SERVER = '/usr/sbin/mariadbd';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
/** A joiner receives its first copy by rsync (SST); its rsync daemon runs as the server's user. */
const NEEDS = [INSTALL_DB, SERVER, PROVIDER, '/usr/bin/rsync', '/usr/bin/wsrep_sst_rsync'];

export function galeraAvailable(): boolean {
  return NEEDS.every((path) => existsSync(path));
}

interface NodePorts {
  sql: number;
  group: number;
  ist: number;
  sst: number;
}

/** A 3-node MariaDB Galera cluster of the test's own, on loopback ports with private data directories. */
export class GaleraCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'dms-galera-'));
  private readonly children: (ChildProcess | undefined)[] = [];
  private ports: NodePorts[] = [];
  /** The server refuses to run as root unless told; as root it runs as `mysql`, so rsync SST can write. */
  private readonly user = userInfo().uid === 0 ? 'mysql' : userInfo().username;

  constructor(readonly size = 3) {}

  /** Process ids of the running nodes (the scale bench counts their CPU). */
  pids(): number[] {
    return this.children.flatMap((child) => (child?.pid && child.exitCode === null ? [child.pid] : []));
  }

  sqlPort(node: number): number {
    return this.ports[node].sql;
  }

  url(node: number, database: string): string {
    return `mysql://root@127.0.0.1:${this.sqlPort(node)}/${database}`;
  }

  async start(): Promise<void> {
    for (let node = 0; node < this.size; node++) {
      this.ports.push({ sql: await freePort(), group: await freePort(), ist: await freePort(), sst: await freePort() });
    }
    chmodSync(this.dir, 0o755);
    for (let node = 0; node < this.size; node++) {
      mkdirSync(this.dataDir(node));
      writeFileSync(this.configFile(node), this.config(node));
    }
    execFileSync(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${this.dataDir(0)}`,
        `--user=${this.user}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    );
    this.own(this.dir);
    await this.startNode(0, true);
    for (let node = 1; node < this.size; node++) await this.startNode(node);
    await this.waitSynced();
  }

  /** Starts a stopped node; it rejoins by IST (or SST) without manual steps. */
  async startNode(node: number, bootstrap = false): Promise<void> {
    if (this.children[node]) {
      // A restart: the state-transfer ports picked at start may have been taken since (an outgoing
      // connection's ephemeral port); the joiner announces new ones to its donor.
      this.ports[node] = { ...this.ports[node], ist: await freePort(), sst: await freePort() };
      writeFileSync(this.configFile(node), this.config(node));
    }
    const args = [`--defaults-file=${this.configFile(node)}`, ...(bootstrap ? ['--wsrep-new-cluster'] : [])];
    const child = spawn(SERVER, args, { stdio: 'ignore' });
    this.children[node] = child;
    await this.waitFor(node, async (status) => status.wsrep_local_state === '4', 'synced');
  }

  /** kill -9 of one node, as a crash looks to the cluster and the service. */
  async killNode(node: number): Promise<void> {
    const child = this.children[node];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async waitSynced(): Promise<void> {
    for (let node = 0; node < this.size; node++) {
      await this.waitFor(
        node,
        async (status) => status.wsrep_local_state === '4' && status.wsrep_cluster_size === String(this.size),
        `synced in a cluster of ${this.size}`,
      );
    }
  }

  async query<T>(node: number, sql: string, params: unknown[] = []): Promise<T> {
    const connection = await createConnection({ host: '127.0.0.1', port: this.sqlPort(node), user: 'root' });
    try {
      const [rows] = await connection.query(sql, params);
      return rows as T;
    } finally {
      await connection.end();
    }
  }

  /** Whether a root connection to this port (a node, or a proxy in front of one) answers a query. */
  async reachable(port: number): Promise<boolean> {
    try {
      const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
      await connection.query('SELECT 1');
      await connection.end();
      return true;
    } catch {
      return false;
    }
  }

  async destroy(): Promise<void> {
    for (let node = 0; node < this.size; node++) await this.killNode(node);
    rmSync(this.dir, { recursive: true, force: true });
  }

  log(node: number): string {
    const file = join(this.dir, `node${node}.err`);
    return existsSync(file) ? readFileSync(file, 'utf8').slice(-3000) : '';
  }

  private async waitFor(
    node: number,
    ready: (status: Record<string, string>) => Promise<boolean>,
    what: string,
  ): Promise<void> {
    // A generous bound for a loaded machine; readiness ends the wait sooner.
    const deadline = Date.now() + 180_000;
    for (;;) {
      const child = this.children[node];
      if (!child || child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`Galera node ${node} exited: ${this.log(node)}`);
      }
      try {
        const rows = await this.query<{ Variable_name: string; Value: string }[]>(
          node,
          "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_cluster_size')",
        );
        if (await ready(Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value])))) return;
      } catch {
        // not answering yet
      }
      if (Date.now() > deadline) throw new Error(`Galera node ${node} not ${what} within 180 s: ${this.log(node)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private dataDir(node: number): string {
    return join(this.dir, `node${node}`);
  }

  private configFile(node: number): string {
    return join(this.dir, `node${node}.cnf`);
  }

  private own(path: string): void {
    if (userInfo().uid === 0) execFileSync('chown', ['-R', `${this.user}:${this.user}`, path]);
  }

  private config(node: number): string {
    const ports = this.ports[node];
    const members = this.ports.map((p) => `127.0.0.1:${p.group}`).join(',');
    return `[mysqld]
datadir=${this.dataDir(node)}
port=${ports.sql}
bind-address=127.0.0.1
socket=${join(this.dir, `node${node}.sock`)}
pid-file=${join(this.dir, `node${node}.pid`)}
log-error=${join(this.dir, `node${node}.err`)}
user=${this.user}
skip-log-bin
innodb-buffer-pool-size=32M
innodb-log-file-size=16M
performance-schema=OFF
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
binlog-format=ROW
innodb-autoinc-lock-mode=2
wsrep-on=ON
wsrep-provider=${PROVIDER}
wsrep-cluster-name=dms_test
wsrep-cluster-address=gcomm://${members}
wsrep-node-address=127.0.0.1:${ports.group}
wsrep-node-name=node${node}
wsrep-sst-method=rsync
wsrep-sst-receive-address=127.0.0.1:${ports.sst}
wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:${ports.group};ist.recv_addr=127.0.0.1:${ports.ist};gcache.size=32M"
`;
  }
}
