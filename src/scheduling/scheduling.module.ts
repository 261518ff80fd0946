import { Module } from '@nestjs/common';
import { ClusterJobs } from './cluster-jobs.js';
import { JobLeasesRepository } from './job-leases.repository.js';

/** Jobs that run once per period across every instance (trash purge, reminders, retention). */
@Module({ providers: [ClusterJobs, JobLeasesRepository], exports: [ClusterJobs] })
export class SchedulingModule {}
