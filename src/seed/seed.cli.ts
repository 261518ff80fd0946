// npm run seed [-- --json]: fills an empty database with demo data and prints who can log in.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { withCliContext } from '../cli/cli-support.js';
import { ConfigError } from '../config/config-error.js';
import { seedConfig, storageConfig } from '../config/configuration.js';
import { createFileStore } from '../storage/storage.providers.js';
import { S3FileStore } from '../storage/s3-file-store.js';
import { demoLogins, demoPasswordNote, SeedRefusedError, seedDemoData } from './demo-seed.js';

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  await withCliContext(async (context) => {
    const seed = context.get<ReturnType<typeof seedConfig>>(seedConfig.KEY);
    const storage = context.get<ReturnType<typeof storageConfig>>(storageConfig.KEY);
    const store = createFileStore(storage);
    const summary = await seedDemoData(context.get(DataSource), seed.password, store).finally(() => {
      if (store instanceof S3FileStore) store.client.destroy();
    });
    if (json) {
      console.log(JSON.stringify(summary));
      return;
    }
    const notifications = Object.values(summary.notifications).reduce((a, b) => a + b, 0);
    console.log(`Demo data created: ${summary.documents.length} documents, ${notifications} notifications.`);
    console.log(`Users, all with ${demoPasswordNote(seed)}, each with a document they may update:`);
    for (const login of demoLogins(summary)) {
      console.log(`  ${login.username.padEnd(8)} ${login.roles.join(', ').padEnd(14)} document ${login.documentId}`);
    }
    console.log('Try them in Swagger UI at /docs of the running service (npm start, http://localhost:3000/docs).');
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof SeedRefusedError || error instanceof ConfigError) {
      console.error(`Seed refused: ${error.message}`);
    } else {
      console.error(`Seed failed: ${(error as Error).name}: ${(error as Error).message}`);
    }
    process.exit(1);
  },
);
