import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatabaseConfig } from '../../src/config/app.config.js';
import { migrationDataSourceOptions } from '../../src/data-source.js';
import { createTestDatabase, databasesUnderTest, type TestDatabase } from '../support/databases.js';

/**
 * The entities must declare exactly the schema the migrations create. TypeORM's schema builder
 * compares the two: after every migration has run it must have nothing left to do. This is the
 * same comparison `migration:generate` drafts its migration from (MigrationGenerateCommand calls
 * `driver.createSchemaBuilder().log()` and writes its upQueries), so an empty log here means
 * `migration:generate` right after `migration:run` drafts nothing.
 */
describe.each(databasesUnderTest())('schema on %s', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = new DataSource(await migrationDataSourceOptions(loadDatabaseConfig({ DATABASE_URL: database.url })));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('has no pending migration', async () => {
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('matches the entities exactly: the schema builder has nothing to do after every migration', async () => {
    const log = await dataSource.driver.createSchemaBuilder().log();
    const statements = log.upQueries.map((query) => query.query);
    expect(statements, `schema diff after migration:run:\n${statements.join(';\n')}`).toEqual([]);
  });
});
