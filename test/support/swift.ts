import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './service-process.js';

/**
 * A private OpenStack Swift (Debian's packages) speaking S3 through its s3api middleware: one
 * proxy, one account, container and object server (one replica each, `workers = 0`, so each is
 * one process), a memcached, all on loopback ports, with configuration, rings and the object
 * directory in a temporary directory. Nothing under /etc/swift or /srv is read or written.
 */
export interface SwiftS3 {
  /** Path-style S3 endpoint, e.g. http://127.0.0.1:40123. */
  endpoint: string;
  region: string;
  /** tempauth's `account:user` is the S3 access key; its key the secret. */
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

export interface SwiftPorts {
  proxy: number;
  account: number;
  container: number;
  object: number;
  memcached: number;
}

/** Free loopback ports, so two test runs on one machine never collide. */
export async function freeSwiftPorts(): Promise<SwiftPorts> {
  return {
    proxy: await freePort(),
    account: await freePort(),
    container: await freePort(),
    object: await freePort(),
    memcached: await freePort(),
  };
}

const ACCESS_KEY_ID = 'dms:tester';
const SECRET_ACCESS_KEY = 'dms-test-secret';
const REGION = 'us-east-1';

function serverConfig(dir: string, port: number, app: 'account' | 'container' | 'object'): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${dir}
devices = ${join(dir, 'devices')}
mount_check = false
log_level = WARNING
log_name = dms-test-swift-${app}

[pipeline:main]
pipeline = ${app}-server

[app:${app}-server]
use = egg:swift#${app}
`;
}

function proxyConfig(dir: string, ports: SwiftPorts): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${ports.proxy}
workers = 0
swift_dir = ${dir}
log_level = WARNING
log_name = dms-test-swift-proxy

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${REGION}

[filter:tempauth]
use = egg:swift#tempauth
user_${ACCESS_KEY_ID.replace(':', '_')} = ${SECRET_ACCESS_KEY} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${ports.memcached}

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
`;
}

function buildRing(dir: string, kind: string, port: number): void {
  const builder = join(dir, `${kind}.builder`);
  execFileSync('swift-ring-builder', [builder, 'create', '6', '1', '1'], { stdio: 'ignore' });
  execFileSync('swift-ring-builder', [builder, 'add', `r1z1-127.0.0.1:${port}/d1`, '100'], { stdio: 'ignore' });
  try {
    execFileSync('swift-ring-builder', [builder, 'rebalance'], { stdio: 'ignore' });
  } catch (error) {
    // Exit status 1 is a warning (e.g. about balance with a single device); 2 is an error.
    if ((error as { status?: number }).status !== 1) throw error;
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts the servers and answers once the proxy serves an S3 request (an authenticated ListBuckets). */
export async function startSwiftS3(ports?: SwiftPorts): Promise<SwiftS3> {
  ports ??= await freeSwiftPorts();
  for (const port of Object.values(ports)) {
    if (await portAnswers(port)) throw new Error(`Swift for the tests: port ${port} is already in use.`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dms-swift-'));
  const children: ChildProcess[] = [];
  const output: string[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    mkdirSync(join(dir, 'devices', 'd1'), { recursive: true });
    writeFileSync(
      join(dir, 'swift.conf'),
      `[swift-hash]\nswift_hash_path_suffix = ${randomBytes(8).toString('hex')}\n\n` +
        '[storage-policy:0]\nname = Policy-0\ndefault = yes\n',
    );
    buildRing(dir, 'account', ports.account);
    buildRing(dir, 'container', ports.container);
    buildRing(dir, 'object', ports.object);
    writeFileSync(join(dir, 'account-server.conf'), serverConfig(dir, ports.account, 'account'));
    writeFileSync(join(dir, 'container-server.conf'), serverConfig(dir, ports.container, 'container'));
    writeFileSync(join(dir, 'object-server.conf'), serverConfig(dir, ports.object, 'object'));
    writeFileSync(join(dir, 'proxy-server.conf'), proxyConfig(dir, ports));

    const start = (command: string, args: string[]): void => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk: Buffer) => {
        output.push(`${command}: ${chunk.toString()}`);
        if (output.length > 50) output.shift();
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      child.once('error', (error) => output.push(`${command}: ${error.message}`));
      children.push(child);
    };
    start('memcached', ['-l', '127.0.0.1', '-p', String(ports.memcached), '-U', '0', '-m', '16', '-u', 'root']);
    for (const server of ['account', 'container', 'object', 'proxy']) {
      start(`swift-${server}-server`, [join(dir, `${server}-server.conf`)]);
    }

    const swift: SwiftS3 = {
      endpoint: `http://127.0.0.1:${ports.proxy}`,
      region: REGION,
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      stop,
    };
    await waitUntilReady(swift, children, output);
    return swift;
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntilReady(swift: SwiftS3, children: ChildProcess[], output: string[]): Promise<void> {
  const { S3Client, ListBucketsCommand } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
    maxAttempts: 1,
  });
  let lastError: unknown;
  try {
    // Polls readiness; a Swift not up within two minutes (a loaded machine starts its four Python
    // servers slowly) is a failed start, its output reported.
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const exited = children.find((child) => child.exitCode !== null || child.signalCode !== null);
      if (exited) throw new Error(`Swift for the tests: ${exited.spawnfile} exited.\n${output.join('')}`);
      try {
        await client.send(new ListBucketsCommand({}));
        return;
      } catch (error) {
        lastError = error;
      }
      await delay(100);
    }
  } finally {
    client.destroy();
  }
  throw new Error(`Swift for the tests did not answer S3 requests: ${String(lastError)}\n${output.join('')}`);
}
