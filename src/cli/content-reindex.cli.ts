// npm run content:reindex -- [--status failed|all] [--project <id>] [--type <id>]
// Queues documents' current versions for text extraction again, as POST /api/admin/content/reindex
// does, batch by batch with progress. Interrupted, it resumes after the last committed batch: the
// position is kept in a checkpoint file beside the file store until the run completes.
import 'reflect-metadata';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClockModule } from '../common/time/clock.module.js';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { ContentReindex } from '../content/content-reindex.js';
import { ContentRepository, type ReindexFilter } from '../content/content.repository.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import { CliError, parseFlags, runCli } from './cli-support.js';
import { CliModule } from './cli.module.js';

const USAGE =
  'Usage: npm run content:reindex -- [--status failed|all] [--project <projectId>] [--type <documentTypeId>]\n' +
  'Queues the current versions of live documents for extraction (default: those that failed).';

@Module({ imports: [CliModule, ClockModule], providers: [ContentReindex, ContentRepository, JobsRepository] })
class ContentCliModule {}

interface Checkpoint {
  filter: ReindexFilter;
  afterId: string;
  queued: number;
}

async function main(): Promise<void> {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      status: { type: 'string' },
      project: { type: 'string' },
      type: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const status = flags.status ?? 'failed';
  if (status !== 'failed' && status !== 'all') throw new CliError(`--status must be failed or all\n\n${USAGE}`, 2);
  const filter: ReindexFilter = { status, projectId: flags.project, documentTypeId: flags.type };
  const context = await NestFactory.createApplicationContext(ContentCliModule, { logger: false, abortOnError: false });
  try {
    const storage = context.get<StorageConfig>(storageConfig.KEY);
    const checkpointPath = join(storage.dir, '.content-reindex.json');
    const saved = await readCheckpoint(checkpointPath);
    const resume = saved && JSON.stringify(saved.filter) === JSON.stringify(filter) ? saved : undefined;
    if (resume) console.log(`Resuming after document ${resume.afterId} (${resume.queued} queued before).`);
    const before = resume?.queued ?? 0;
    const queued = await context.get(ContentReindex).run(filter, resume?.afterId, async (sofar, lastId) => {
      process.stdout.write(`\r${before + sofar} version(s) queued, up to document ${lastId}`);
      await writeFile(checkpointPath, JSON.stringify({ filter, afterId: lastId, queued: before + sofar }));
    });
    await rm(checkpointPath, { force: true });
    process.stdout.write('\n');
    console.log(`Queued ${before + queued} version(s) for extraction; the service's workers read them.`);
  } finally {
    await context.close();
  }
}

async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Checkpoint;
  } catch {
    return undefined;
  }
}

runCli('content:reindex', main);
