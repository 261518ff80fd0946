import { DataSource } from 'typeorm';
import { databaseConfig } from '../../src/config/configuration.js';
import { validateEnvironment } from '../../src/config/environment.js';
import { appDataSourceOptions } from '../../src/data-source.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';

export interface MigratedDataSource {
  dataSource: DataSource;
  close: () => Promise<void>;
}

/** A fresh database of the given kind with the application's schema (its own migrations), without the app. */
export async function openMigratedDataSource(kind: DatabaseKind): Promise<MigratedDataSource> {
  const database: TestDatabase = await createTestDatabase(kind);
  const dataSource = new DataSource({
    ...appDataSourceOptions(databaseConfig.build(validateEnvironment({ DATABASE_URL: database.url }))),
    migrationsRun: true,
  });
  await dataSource.initialize();
  return {
    dataSource,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    },
  };
}
