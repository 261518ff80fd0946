// npm run trash:purge
// Removes the documents that have been in the trash longer than TRASH_RETENTION_DAYS, with their
// versions and history, and every stored file no remaining version references (what the service
// also does every hour).
import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { httpConfig } from '../config/configuration.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { DocumentTrashService } from '../documents/document-trash.service.js';
import { parseFlags, runCli } from './cli-support.js';
import { CliModule } from './cli.module.js';

const USAGE = 'Usage: npm run trash:purge';

/** REQUEST_TIMEOUT_MS, which tells the file collector when an upload in flight is stale. */
@Global()
@Module({ imports: [ConfigModule.forFeature(httpConfig)], exports: [ConfigModule] })
class UploadDeadlineModule {}

/**
 * The CLIs' module (database, STORAGE_DIR; its one DatabaseModule.forRoot, so no second data source
 * named "default") with the documents feature. No HTTP is served, no JWT keys are needed.
 */
@Module({ imports: [CliModule, UploadDeadlineModule, DocumentsModule] })
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
