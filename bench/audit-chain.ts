// npm run build && node dist/bench/audit-chain.js
// What the audit hash chain costs a write: transactions shaped like a document update (lock the
// row, update it, insert a history row) plus one audit event, 16 at a time, with the event chained
// (AuditTrail.record: head locked FOR UPDATE, sequence + hash, head moved) or inserted unchained.
// Alternating rounds on MariaDB (and SQLite); prints writes/s and the ratio chained / unchained.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type QueryDeepPartialEntity } from 'typeorm';
import { AuditRepository } from '../src/audit/audit.repository.js';
import { AuditTrail } from '../src/audit/audit-trail.js';
import { AuditChainHead } from '../src/audit/entities/audit-chain-head.entity.js';
import { AuditEvent } from '../src/audit/entities/audit-event.entity.js';
import { databaseConfig } from '../src/config/configuration.js';
import { validateEnvironment } from '../src/config/environment.js';
import { appDataSourceOptions } from '../src/data-source.js';
import { Transactions, type Tx } from '../src/database/transactions.js';

const CONCURRENCY = Number(process.env.BENCH_AUDIT_CONCURRENCY ?? 16);
const ROUND_MS = Number(process.env.BENCH_AUDIT_ROUND_MS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 3);
const ROWS = 1_000;
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const CONTEXT = { actorId: null, ip: '127.0.0.1', requestId: null };

async function open(url: string): Promise<DataSource> {
  const dataSource = new DataSource({
    ...appDataSourceOptions(databaseConfig.build(validateEnvironment({ DATABASE_URL: url }))),
    migrationsRun: true,
  });
  await dataSource.initialize();
  await dataSource.query('CREATE TABLE bench_rows (id int PRIMARY KEY, n int NOT NULL)');
  await dataSource.query('CREATE TABLE bench_history (id varchar(36) PRIMARY KEY, rowId int NOT NULL, payload text)');
  for (let id = 0; id < ROWS; id += 100) {
    const values = Array.from({ length: 100 }, (_, i) => `(${id + i}, 0)`).join(',');
    await dataSource.query(`INSERT INTO bench_rows (id, n) VALUES ${values}`);
  }
  return dataSource;
}

/** Writes per second over ROUND_MS, CONCURRENCY workers each running `write` in a loop. */
async function throughput(transactions: Transactions, write: (tx: Tx, row: number) => Promise<void>): Promise<number> {
  let done = 0;
  const until = performance.now() + ROUND_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = 0; performance.now() < until; i++) {
        const row = (worker * 7919 + i * 31) % ROWS;
        await transactions.run((tx) => write(tx, row));
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - started);
}

async function measure(label: string, url: string): Promise<void> {
  const dataSource = await open(url);
  try {
    const transactions = new Transactions(dataSource);
    const repository = new AuditRepository(
      dataSource.getRepository(AuditEvent),
      dataSource.getRepository(AuditChainHead),
    );
    const trail = new AuditTrail(repository, transactions);
    const lock = dataSource.options.type === 'better-sqlite3' ? '' : ' FOR UPDATE';
    const change = async (tx: Tx, row: number) => {
      await tx.query(`SELECT n FROM bench_rows WHERE id = ?${lock}`, [row]);
      await tx.query('UPDATE bench_rows SET n = n + 1 WHERE id = ?', [row]);
      await tx.query('INSERT INTO bench_history (id, rowId, payload) VALUES (?, ?, ?)', [
        randomUUID(),
        row,
        '{"title":{}}',
      ]);
    };
    const event = (row: number) => ({
      action: 'document.updated',
      targetType: 'document',
      targetId: randomUUID(),
      changes: { title: { from: `t${row}`, to: `t${row + 1}` } },
    });
    const chained = (tx: Tx, row: number) => change(tx, row).then(() => trail.record(tx, CONTEXT, event(row)));
    const unchained = async (tx: Tx, row: number) => {
      await change(tx, row);
      const { action, targetType, targetId, changes } = event(row);
      const values = { id: randomUUID(), at: new Date(), actorId: null, action, targetType, targetId, ip: '127.0.0.1' };
      await tx.getRepository(AuditEvent).insert({
        ...values,
        requestId: null,
        changes,
        sequence: null,
        previousHash: null,
        hash: null,
      } as QueryDeepPartialEntity<AuditEvent>);
    };
    await throughput(transactions, unchained); // warm-up
    const results = { chained: [] as number[], unchained: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      results.unchained.push(await throughput(transactions, unchained));
      results.chained.push(await throughput(transactions, chained));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const [withChain, without] = [median(results.chained), median(results.unchained)];
    console.log(
      `${label}: ${withChain.toFixed(0)} writes/s chained, ${without.toFixed(0)} unchained, ratio ${(withChain / without).toFixed(2)} ` +
        `(concurrency ${CONCURRENCY}, ${ROUNDS} x ${ROUND_MS} ms, median)`,
    );
  } finally {
    await dataSource.destroy();
  }
}

async function main(): Promise<void> {
  const name = `dms_bench_audit_${process.pid}`;
  const root = new DataSource({ type: 'mysql', url: MYSQL_URL });
  await root.initialize();
  await root.query(`CREATE DATABASE ${name}`);
  try {
    await measure('MariaDB', `${MYSQL_URL}/${name}`);
  } finally {
    await root.query(`DROP DATABASE ${name}`);
    await root.destroy();
  }
  const dir = mkdtempSync(join(tmpdir(), 'dms-bench-audit-'));
  try {
    await measure('SQLite', `sqlite:${join(dir, 'bench.sqlite')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
