// npm run trash:purge
// Removes the documents that have been in the trash longer than TRASH_RETENTION_DAYS, with their
// versions and history, and every stored file no remaining version references (what the service
// also does every hour).
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { databaseConfig, storageConfig } from '../config/configuration.js';
import { SCHEMA } from '../data-source.js';
import { DatabaseModule } from '../database/database.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { DocumentTrashService } from '../documents/document-trash.service.js';
import { parseFlags, runCli } from './cli-support.js';

const USAGE = 'Usage: npm run trash:purge';

/** The database and the documents feature (its file store under STORAGE_DIR); no HTTP, no JWT keys. */
@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      skipProcessEnv: true,
      load: [databaseConfig, storageConfig],
    }),
    DatabaseModule.forRoot(SCHEMA),
    DocumentsModule,
  ],
})
class TrashPurgeCliModule {}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), { help: { type: 'boolean', short: 'h' } }, USAGE);
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const context = await NestFactory.createApplicationContext(TrashPurgeCliModule, {
    logger: false,
    abortOnError: false,
  });
  try {
    const { documents, files } = await context.get(DocumentTrashService).purgeExpired();
    console.log(`Purged ${documents} document(s) from the trash and removed ${files} stored file(s).`);
  } finally {
    await context.close();
  }
}

runCli('trash:purge', main);
