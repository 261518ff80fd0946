import { Global, Module } from '@nestjs/common';
import { JobRunner } from './job-runner.js';
import { JobsRepository } from './jobs.repository.js';

/** The durable job queue (the jobs table): features enqueue in their transactions and register handlers. */
@Global()
@Module({ providers: [JobsRepository, JobRunner], exports: [JobsRepository, JobRunner] })
export class JobsModule {}
