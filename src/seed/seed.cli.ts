// npm run seed [-- --json]: fills an empty database with demo data and prints who can log in.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, DEVELOPMENT_SEED_PASSWORD, loadDatabaseConfig, loadDotEnvFile } from '../config/app.config.js';
import { appDataSourceOptions } from '../data-source.js';
import { SeedRefusedError, seedDemoData } from './demo-seed.js';

async function main(): Promise<number> {
  loadDotEnvFile();
  const json = process.argv.includes('--json');
  const production = process.env.NODE_ENV === 'production';
  const password = process.env.SEED_PASSWORD || (production ? undefined : DEVELOPMENT_SEED_PASSWORD);
  const dataSource = new DataSource(appDataSourceOptions(loadDatabaseConfig()));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const summary = await seedDemoData(dataSource, password);
    if (!json) {
      console.log('Demo data created. Users (all with the same password):');
      for (const user of summary.users) console.log(`  ${user.username.padEnd(8)} roles: ${user.roles.join(', ')}`);
      console.log(`  password: ${production ? '(SEED_PASSWORD)' : summary.users[0].password}`);
      console.log(
        `Documents: ${summary.documents.length}, notifications: ${Object.values(summary.notifications).reduce((a, b) => a + b, 0)}`,
      );
    } else {
      console.log(JSON.stringify(summary));
    }
    return 0;
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof SeedRefusedError || error instanceof ConfigError) {
      console.error(`Seed refused: ${error.message}`);
    } else {
      console.error(`Seed failed: ${(error as Error).name}: ${(error as Error).message}`);
    }
    process.exit(1);
  },
);
