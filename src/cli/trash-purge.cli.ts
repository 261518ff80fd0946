// npm run trash:purge
// Removes the documents that have been in the trash longer than TRASH_RETENTION_DAYS, with their
// versions and history, and every stored file no remaining version references (what the service
// also does every hour).
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DocumentTrashService } from '../documents/document-trash.service.js';
import { parseFlags, runCli } from './cli-support.js';
import { StorageCliModule } from './storage-cli.module.js';

const USAGE = 'Usage: npm run trash:purge';

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), { help: { type: 'boolean', short: 'h' } }, USAGE);
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const context = await NestFactory.createApplicationContext(StorageCliModule, {
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
