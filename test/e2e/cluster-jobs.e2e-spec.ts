// Jobs that run once per period across instances (issue 31): a lease row decides who runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions.js';
import { ClusterJobs } from '../../src/scheduling/cluster-jobs.js';
import { JobLeasesRepository } from '../../src/scheduling/job-leases.repository.js';
import { databasesUnderTest } from '../support/databases.js';
import { openMigratedDataSource, type MigratedDataSource } from '../support/migrated-data-source.js';
import { TestClock } from '../support/test-clock.js';

const PERIOD_MS = 60_000;

describe.each(databasesUnderTest())('cluster jobs on %s', (kind) => {
  let database: MigratedDataSource;
  let second: DataSource;
  const clock = new TestClock(new Date('2026-03-02T10:00:00.000Z'));
  const runs: string[] = [];

  const transactions = new Map<DataSource, Transactions>();

  /** An instance: its own id, the same job; one Transactions per connection pool, as in the app. */
  function instance(dataSource: DataSource, name: string): ClusterJobs {
    if (!transactions.has(dataSource)) transactions.set(dataSource, new Transactions(dataSource));
    const jobs = new ClusterJobs(new JobLeasesRepository(transactions.get(dataSource)!), clock, { instanceId: name });
    jobs.schedule({
      name: 'nightly',
      everyMs: PERIOD_MS,
      firstDelayMs: 2 ** 30,
      run: async () => void runs.push(name),
    });
    return jobs;
  }

  beforeAll(async () => {
    database = await openMigratedDataSource(kind);
    second = new DataSource({ ...database.dataSource.options, migrationsRun: false });
    await second.initialize();
  });

  afterAll(async () => {
    if (second?.isInitialized) await second.destroy();
    await database?.close();
  });

  it('runs a job on one instance per period, and moves on when its holder stops', async () => {
    const a = instance(database.dataSource, 'a');
    const b = instance(second, 'b');
    try {
      expect(await a.tick('nightly')).toBe(true);
      expect(await b.tick('nightly')).toBe(false);
      clock.advance(PERIOD_MS);
      expect(await b.tick('nightly')).toBe(false);
      expect(await a.tick('nightly')).toBe(true);
      // a stops: b takes over once a's lease (1.5 periods) has run out, not before.
      clock.advance(PERIOD_MS);
      expect(await b.tick('nightly')).toBe(false);
      clock.advance(PERIOD_MS / 2);
      expect(await b.tick('nightly')).toBe(true);
      expect(await a.tick('nightly')).toBe(false);
      expect(runs.splice(0)).toEqual(['a', 'a', 'b']);
    } finally {
      await a.onApplicationShutdown();
      await b.onApplicationShutdown();
    }
  });

  it('lets exactly one of many instances racing for an expired lease run', async () => {
    const instances = Array.from({ length: 6 }, (_, i) => instance(i % 2 ? second : database.dataSource, `i${i}`));
    try {
      clock.advance(10 * PERIOD_MS);
      const ran = await Promise.all(instances.map((jobs) => jobs.tick('nightly')));
      expect(ran.filter(Boolean)).toHaveLength(1);
      expect(runs.splice(0)).toHaveLength(1);
    } finally {
      await Promise.all(instances.map((jobs) => jobs.onApplicationShutdown()));
    }
  });
});
