// MySQL DDL is not transactional: a migration stopped half-way must run again from the start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../../src/config/configuration.js';
import { validateEnvironment } from '../../src/config/environment.js';
import { appDataSourceOptions, MIGRATIONS } from '../../src/data-source.js';
import { createTestDatabase, databasesUnderTest, type TestDatabase } from '../support/databases.js';

describe.runIf(databasesUnderTest().includes('mysql'))('every migration on MySQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    dataSource = new DataSource({
      ...appDataSourceOptions(databaseConfig.build(validateEnvironment({ DATABASE_URL: database.url }))),
      migrationsRun: false,
    });
    await dataSource.initialize();
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it('runs again after it already ran (as after a failure half-way), in order', { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    for (const Migration of MIGRATIONS) {
      const migration = new Migration();
      const runner = dataSource.createQueryRunner();
      try {
        await migration.up(runner);
        try {
          await migration.up(runner);
        } catch (error) {
          failures.push(`${migration.name ?? Migration.name}: ${(error as Error).message.slice(0, 120)}`);
        }
      } finally {
        await runner.release();
      }
    }
    expect(failures).toEqual([]);
  });
});
