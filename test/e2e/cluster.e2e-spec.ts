// Several instances on a MariaDB Galera cluster behind HAProxy (issue 31): write conflicts between
// nodes never lose an update or answer 500, a killed instance or node costs only 503 + Retry-After.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GaleraCluster, galeraAvailable } from '../support/galera-cluster.js';
import { HaproxyProcess, haproxyAvailable } from '../support/haproxy.js';
import { openSse, waitFor } from '../support/inbox.js';
import {
  freePort,
  startServiceProcess,
  stopServiceProcesses,
  type ServiceProcess,
} from '../support/service-process.js';

const DATABASE = 'dms_cluster_test';
const PASSWORD = 'Cluster-Seed-Password-42!';

interface DocumentRow {
  id: string;
  uploadedBy: string;
}

interface Answer {
  status: number;
  etag: string | null;
  retryAfter: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(url: string, token: string, method: string, path: string, body?: unknown, ifMatch?: string) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(ifMatch ? { 'if-match': ifMatch } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    retryAfter: response.headers.get('retry-after'),
    body: text ? JSON.parse(text) : undefined,
  } satisfies Answer;
}

async function login(url: string, username: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`login ${username}: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

const redisUrl = process.env.TEST_REDIS_URL;
const runnable = galeraAvailable() && haproxyAvailable() && redisUrl !== undefined;
if (!runnable && process.env.CI === 'true') {
  throw new Error('CI=true but Galera (galera-4, rsync), HAProxy or TEST_REDIS_URL is missing: .ci/run installs them.');
}

describe.runIf(runnable)('a Galera cluster behind HAProxy with two instances', () => {
  const cluster = new GaleraCluster(3);
  const haproxy = new HaproxyProcess();
  const storageDir = mkdtempSync(join(tmpdir(), 'dms-cluster-files-'));
  let a: ServiceProcess;
  let b: ServiceProcess;
  let admin: string;
  let documents: { id: string }[];

  const env = (databaseUrl: string, port: number): Record<string, string> => ({
    NODE_ENV: 'development',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DB_MIGRATIONS_RUN: 'true',
    JWT_SECRET: 'cluster-test-secret-0123456789abcdef',
    SEED_DEMO: 'true',
    SEED_PASSWORD: PASSWORD,
    STORAGE_DIR: storageDir,
    REDIS_URL: redisUrl!,
    TRUST_PROXY: 'true',
    LOGIN_RATE_LIMIT_PER_IP: '100000',
    LOGIN_RATE_LIMIT_PER_USERNAME: '100000',
  });

  beforeAll(async () => {
    await cluster.start();
    await cluster.query(0, `CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    // HAProxy's synced check logs in as this user (deploy/haproxy/galera-check.sh).
    await cluster.query(0, `CREATE USER 'haproxy_check'@'127.0.0.1'`);
    const [portA, portB] = [await freePort(), await freePort()];
    await haproxy.start(
      [portA, portB].map((port) => `127.0.0.1:${port}`),
      [0, 1, 2].map((node) => `127.0.0.1:${cluster.sqlPort(node)}`),
    );
    const writer = `mysql://root@127.0.0.1:${haproxy.galeraPort}/${DATABASE}`;
    await waitFor(() => cluster.reachable(haproxy.galeraPort), 'the Galera writer behind HAProxy', 60_000);
    // A writes through HAProxy's single-writer frontend (node 0), migrating and seeding; B then
    // writes straight to node 1, so that the two instances write through two nodes.
    a = await startServiceProcess(env(writer, portA));
    b = await startServiceProcess(env(cluster.url(1, DATABASE), portB));
    await waitFor(
      async () => (await fetch(`${haproxy.url}/health/ready`)).ok,
      'HAProxy to see an instance ready',
      60_000,
    );
    admin = await login(a.url, 'admin');
    documents = (await call(a.url, admin, 'GET', '/api/documents?limit=20')).body.documents;
  }, 300_000);

  afterAll(async () => {
    await stopServiceProcesses();
    await haproxy.stop();
    await cluster.destroy();
    rmSync(storageDir, { recursive: true, force: true });
  }, 60_000);

  it('ran every migration on Galera, replicated to every node', async () => {
    for (const node of [0, 1, 2]) {
      const [{ n }] = await cluster.query<{ n: number | string }[]>(
        node,
        `SELECT COUNT(*) AS n FROM ${DATABASE}.migrations`,
      );
      expect(Number(n)).toBeGreaterThan(20);
    }
  });

  it('answers concurrent updates of one document through two nodes with 200 or 412, never losing one', async () => {
    const document = documents[0];
    const tokenB = await login(b.url, 'admin');
    const first = await call(a.url, admin, 'GET', `/api/documents/${document.id}`);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(
          i % 2 ? b.url : a.url,
          i % 2 ? tokenB : admin,
          'PUT',
          `/api/documents/${document.id}`,
          { title: `race ${i}` },
          first.etag!,
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 200 || status === 412),
      String(statuses),
    ).toBe(true);
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    const stored = await call(b.url, tokenB, 'GET', `/api/documents/${document.id}`);
    expect({ title: stored.body.document.title, etag: stored.etag }).toEqual({
      title: won[0].body.document.title,
      etag: won[0].etag,
    });
    for (const node of [0, 1, 2]) {
      const [{ history, events }] = await cluster.query<{ history: number | string; events: number | string }[]>(
        node,
        `SELECT (SELECT COUNT(*) FROM ${DATABASE}.document_history WHERE documentId = ? AND action = 'updated') AS history,
                (SELECT COUNT(*) FROM ${DATABASE}.outbox_events WHERE documentId = ? AND type = 'document.updated') AS events`,
        [document.id, document.id],
      );
      expect({ node, history: Number(history), events: Number(events) }).toEqual({ node, history: 1, events: 1 });
    }
  });

  it('serializes unconditional updates from both nodes: every 200 is one change, none lost', async () => {
    const document = documents[1];
    const tokenB = await login(b.url, 'admin');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(i % 2 ? b.url : a.url, i % 2 ? tokenB : admin, 'PUT', `/api/documents/${document.id}`, {
          title: `both ${i}`,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 200 || (status === 503 && answers[0].retryAfter !== undefined)),
      String(statuses),
    ).toBe(true);
    const acknowledged = answers
      .filter((answer) => answer.status === 200)
      .map((answer) => answer.body.document.title as string);
    const history = await cluster.query<{ changes: string }[]>(
      2,
      `SELECT changes FROM ${DATABASE}.document_history WHERE documentId = ? AND action = 'updated'`,
      [document.id],
    );
    const recorded = history.map((row) => (JSON.parse(row.changes) as { title?: { to?: string } }).title?.to);
    const byText = (x = '', y = '') => x.localeCompare(y);
    expect(recorded.toSorted(byText)).toEqual(acknowledged.toSorted(byText));
  });

  it('carries live notifications from one instance to a stream on the other', { timeout: 90_000 }, async () => {
    const alice = await login(a.url, 'alice');
    const ticket = (await call(a.url, alice, 'POST', '/api/notifications/stream-tickets')).body.ticket as string;
    const stream = await openSse(`${a.url}/api/notifications/stream?ticket=${encodeURIComponent(ticket)}`);
    try {
      expect(stream.status).toBe(200);
      // alice changes a document (she becomes a participant), then admin changes it through the other instance.
      const me = (await call(a.url, alice, 'GET', '/api/auth/me')).body.user as { id: string };
      const listed = (await call(a.url, alice, 'GET', '/api/documents?limit=100')).body.documents as DocumentRow[];
      const mine = listed.find((document) => document.uploadedBy === me.id)!;
      expect((await call(a.url, alice, 'PUT', `/api/documents/${mine.id}`, { description: 'mine now' })).status).toBe(
        200,
      );
      const changed = await call(b.url, await login(b.url, 'admin'), 'PUT', `/api/documents/${mine.id}`, {
        title: 'Seen across instances',
      });
      expect(changed.status).toBe(200);
      await waitFor(
        async () =>
          stream.events.some(
            (event) => event.event === 'notification' && event.data?.includes('Seen across instances'),
          ),
        'the notification on the other instance',
        60_000,
      );
    } finally {
      stream.close();
    }
  });

  it(
    'answers 200 or 503 with Retry-After through HAProxy while a node and an instance are killed, losing no acknowledged write',
    { timeout: 300_000 },
    async () => {
      const token = await login(haproxy.url, 'admin');
      const acknowledged = new Map<string, string[]>();
      const refused: Answer[] = [];
      const done = new AbortController();
      const worker = async (document: { id: string }, index: number) => {
        for (let round = 0; !done.signal.aborted; round++) {
          const title = `load ${index}-${round}`;
          const answer = await call(haproxy.url, token, 'PUT', `/api/documents/${document.id}`, { title });
          if (answer.status === 200) acknowledged.set(document.id, [...(acknowledged.get(document.id) ?? []), title]);
          else refused.push(answer);
        }
      };
      const load = documents.slice(2, 6).map(worker);
      const acknowledgedCount = () => [...acknowledged.values()].reduce((sum, titles) => sum + titles.length, 0);
      try {
        await waitFor(async () => acknowledgedCount() >= 20, 'writes before the faults', 60_000);
        await cluster.killNode(0);
        const afterNode = acknowledgedCount();
        await waitFor(async () => acknowledgedCount() >= afterNode + 20, 'writes after a node was killed', 120_000);
        b.child.kill('SIGKILL');
        const afterInstance = acknowledgedCount();
        await waitFor(
          async () => acknowledgedCount() >= afterInstance + 20,
          'writes after an instance was killed',
          120_000,
        );
      } finally {
        done.abort();
        await Promise.all(load);
      }
      for (const answer of refused) {
        expect({ status: answer.status, retryAfter: answer.retryAfter !== null, error: answer.body?.error }).toEqual({
          status: 503,
          retryAfter: true,
          error: 'service_unavailable',
        });
      }
      await cluster.startNode(0);
      await cluster.waitSynced();
      for (const [documentId, titles] of acknowledged) {
        for (const node of [0, 1, 2]) {
          const history = await cluster.query<{ changes: string }[]>(
            node,
            `SELECT changes FROM ${DATABASE}.document_history WHERE documentId = ? AND action = 'updated'`,
            [documentId],
          );
          const recorded = new Set(
            history.map((row) => (JSON.parse(row.changes) as { title?: { to?: string } }).title?.to),
          );
          expect(titles.filter((title) => !recorded.has(title))).toEqual([]);
        }
      }
    },
  );

  it('keeps notification counts exact on every node', async () => {
    const counted = `SELECT userId, status, notificationType, (readAt IS NOT NULL) AS isRead, COUNT(*) AS total
                       FROM ${DATABASE}.notifications GROUP BY userId, status, notificationType, (readAt IS NOT NULL)`;
    const kept = `SELECT userId, status, notificationType, isRead, total FROM ${DATABASE}.notification_counts WHERE total <> 0`;
    const key = (row: Record<string, unknown>) =>
      `${String(row.userId)} ${String(row.status)} ${String(row.notificationType)} ${Number(row.isRead)} ${Number(row.total)}`;
    for (const node of [0, 1, 2]) {
      const expected = (await cluster.query<Record<string, unknown>[]>(node, counted)).map(key).toSorted();
      expect(expected.length).toBeGreaterThan(0);
      expect((await cluster.query<Record<string, unknown>[]>(node, kept)).map(key).toSorted()).toEqual(expected);
    }
  });
});
