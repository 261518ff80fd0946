import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transactions } from '../../src/database/transactions.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * Another process's writer on the same SQLite file (a CLI, say), in a thread of its own: short
 * write transactions in a loop, each holding the write lock for a moment, until told to stop.
 */
const SECOND_WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomUUID } = require('node:crypto');
const Database = require('better-sqlite3');
const db = new Database(workerData.path, { timeout: 10000 });
const insert = db.prepare(
  "INSERT INTO notifications (id, userId, subject, message, notificationType, status, createdAt) VALUES (?, ?, 'cli', 'cli', 'in_app', 'sent', ?)",
);
const held = new Int32Array(new SharedArrayBuffer(4));
let stop = false;
let writes = 0;
parentPort.on('message', () => (stop = true));
function loop() {
  if (stop) {
    db.close();
    parentPort.postMessage(writes);
    return;
  }
  db.exec('BEGIN IMMEDIATE');
  insert.run(randomUUID(), workerData.userId, new Date().toISOString().replace('T', ' ').replace('Z', ''));
  Atomics.wait(held, 0, 0, 2);
  db.exec('COMMIT');
  writes++;
  setImmediate(loop);
}
parentPort.postMessage('started');
loop();
`;

describe.runIf(databasesUnderTest().includes('sqlite'))(
  'POST /api/notifications/read-all beside a second SQLite writer',
  () => {
    let t: TestApp;
    const tokens: Record<string, string> = {};
    let call: ReturnType<typeof apiCaller>;
    let worker: Worker | undefined;

    beforeAll(async () => {
      t = await createTestApp('sqlite');
      for (const username of ['erin', 'bob']) tokens[username] = await t.login(username);
      call = apiCaller(t, tokens);
    });

    afterAll(async () => {
      await worker?.terminate();
      await t?.close();
    });

    async function insertUnread(userId: string, count: number): Promise<void> {
      const createdAt = new Date(Date.now() - 60_000).toISOString().replace('T', ' ').replace('Z', '');
      for (let start = 0; start < count; start += 500) {
        const rows = Array.from({ length: Math.min(500, count - start) }, () => [randomUUID(), userId, createdAt]);
        // Through the service's transactions, so this writer too waits out the other one.
        await t.app.get(Transactions).run((tx) =>
          tx.query(
            `INSERT INTO notifications (id, userId, subject, message, notificationType, status, createdAt)
         VALUES ${rows.map(() => "(?, ?, 'bulk', 'bulk', 'push', 'sent', ?)").join(', ')}`,
            rows.flat(),
          ),
        );
      }
    }

    it('answers 200 with every row marked and exact counts while another connection writes (issue 30 #8)', async () => {
      const erin = t.user('erin').id;
      worker = new Worker(SECOND_WRITER, {
        eval: true,
        workerData: { path: t.database.url.slice('sqlite:'.length), userId: t.user('bob').id },
      });
      const messages: unknown[] = [];
      worker.on('message', (message) => messages.push(message));
      await new Promise<void>((resolve, reject) => {
        worker!.once('message', () => resolve());
        worker!.once('error', reject);
      });
      const stopped = new Promise<number>((resolve) =>
        worker!.on('message', (message) => typeof message === 'number' && resolve(message)),
      );
      try {
        for (let round = 0; round < 3; round++) {
          await insertUnread(erin, 2_000);
          const unread = (await call('erin', 'GET', '/api/notifications/unread-count')).body.unread as number;
          const answer = await call('erin', 'POST', '/api/notifications/read-all');
          expect(answer).toMatchObject({ status: 200, body: { updated: unread } });
          expect((await call('erin', 'GET', '/api/notifications/unread-count')).body.unread).toBe(0);
        }
      } finally {
        worker.postMessage('stop', []);
      }
      expect(await stopped).toBeGreaterThan(0);
      // Bob's counts, kept by the triggers under both writers, equal his rows.
      const [row] = await t.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM notifications WHERE userId = ? AND readAt IS NULL',
        [t.user('bob').id],
      );
      expect((await call('bob', 'GET', '/api/notifications/unread-count')).body.unread).toBe(Number(row.n));
    });
  },
);
