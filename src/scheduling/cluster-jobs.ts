import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Clock } from '../common/time/clock.js';
import { storageConfig } from '../config/configuration.js';
import { JobLeasesRepository } from './job-leases.repository.js';

export interface ClusterJob {
  /** Unique per job: the lease's name. */
  name: string;
  everyMs: number;
  firstDelayMs?: number;
  run(): Promise<void>;
}

/**
 * Runs each job once per period across every instance: the instance holding the job's lease runs
 * it and renews the lease; the others take over only when it has expired (1.5 periods without a run).
 */
@Injectable()
export class ClusterJobs implements OnApplicationShutdown {
  /** This process, in leases as in the names of its temporary files (INSTANCE_ID). */
  readonly instanceId: string;
  private readonly logger = new Logger(ClusterJobs.name);
  private readonly jobs = new Map<string, ClusterJob>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly leases: JobLeasesRepository,
    private readonly clock: Clock,
    @Inject(storageConfig.KEY) storage: Pick<ConfigType<typeof storageConfig>, 'instanceId'>,
  ) {
    this.instanceId = storage.instanceId;
  }

  schedule(job: ClusterJob): void {
    this.jobs.set(job.name, job);
    this.arm(job, job.firstDelayMs ?? job.everyMs);
  }

  /** Stops scheduling a job (a turn already running finishes). */
  cancel(name: string): void {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    this.jobs.delete(name);
  }

  /** One period's turn now: runs the job if this instance holds or takes its lease; true when it ran. */
  async tick(name: string): Promise<boolean> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`No scheduled job ${name}`);
    const now = this.clock.now();
    const until = new Date(now.getTime() + job.everyMs * 1.5);
    if (!(await this.leases.take(name, this.instanceId, now, until))) return false;
    await job.run();
    return true;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled(this.running);
  }

  private arm(job: ClusterJob, delayMs: number): void {
    if (this.stopped || this.jobs.get(job.name) !== job) return;
    const timer = setTimeout(() => {
      const turn = this.tick(job.name)
        .catch((error: unknown) => {
          // The code only: never a stack trace or SQL in the log. The next period tries again.
          const code = (error as { code?: string }).code ?? (error as Error).name;
          this.logger.warn(`Job ${job.name} failed (${code}); retrying next period`);
        })
        .finally(() => {
          this.running.delete(turn);
          this.arm(job, job.everyMs);
        });
      this.running.add(turn);
    }, delayMs);
    timer.unref();
    this.timers.set(job.name, timer);
  }
}
