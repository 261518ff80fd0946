// npm run storage:verify
// Checks every stored file a document version names: present, of the recorded size, and with the
// recorded SHA-256. Prints each problem; exits non-zero when there is any.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { StoredFiles } from '../storage/stored-files.js';
import { CliError, parseFlags, runCli } from './cli-support.js';
import { StorageCliModule } from './storage-cli.module.js';

const USAGE = 'Usage: npm run storage:verify';

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), { help: { type: 'boolean', short: 'h' } }, USAGE);
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const context = await NestFactory.createApplicationContext(StorageCliModule, { logger: false, abortOnError: false });
  try {
    const problems = await context.get(StoredFiles).verify();
    for (const { sha256, problem } of problems) console.log(`${sha256}: ${problem}`);
    if (problems.length > 0) throw new CliError(`${problems.length} stored file(s) are missing or damaged.`);
    console.log('Every referenced stored file is present and intact.');
  } finally {
    await context.close();
  }
}

runCli('storage:verify', main);
