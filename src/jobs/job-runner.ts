import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/time/clock.js';
import { Transactions } from '../database/transactions.js';
import { Poller } from '../common/time/poller.js';
import { withDeadline } from '../common/time/with-deadline.js';
import type { Job } from './entities/job.entity.js';
import { JobsRepository } from './jobs.repository.js';

/** How a kind of job runs. */
export interface JobKindOptions {
  /** Jobs of this kind running at once in this instance. */
  concurrency: number;
  /** How long a claim lasts: longer than any run, so only a dead worker's job is claimed again. */
  leaseMs: number;
  /** Claims in all before a job that keeps throwing stays `failed`. */
  maxAttempts: number;
  /** First retry after this long, doubling with each attempt. */
  backoffMs: number;
  /** How often to look for due jobs. */
  pollMs: number;
  /** A run without an answer by then counts as failed (retried), so a hung handler cannot hold its slot. */
  runTimeoutMs: number;
}

/** A job's work. Throwing retries it later (back-off), up to maxAttempts. */
export type JobHandler = (job: Job) => Promise<void>;

/** Retry delay after `attempts` claims: backoffMs, 2×, 4×… capped at an hour. */
export function retryDelayMs(backoffMs: number, attempts: number): number {
  return Math.min(backoffMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/**
 * Runs the jobs table's jobs in this instance: per registered kind, a poller claims due jobs (up
 * to `concurrency` running), runs their handler and settles them. Safe with several instances:
 * a claim is a conditional UPDATE (JobsRepository.claim). Shutdown waits for running jobs.
 */
@Injectable()
export class JobRunner implements OnModuleDestroy {
  private readonly logger = new Logger('Jobs');
  readonly workerId = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly kinds = new Map<string, { poller: Poller; running: Set<Promise<void>> }>();

  constructor(
    private readonly jobs: JobsRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /** Starts running jobs of `kind`. */
  register(kind: string, handler: JobHandler, options: JobKindOptions): void {
    const running = new Set<Promise<void>>();
    const poller = new Poller(options.pollMs, () => this.claimAndRun(kind, handler, options, running), this.logger);
    this.kinds.set(kind, { poller, running });
    poller.start();
  }

  /** Look for jobs of `kind` now (after enqueueing some). */
  wake(kind: string): void {
    this.kinds.get(kind)?.poller.wake();
  }

  async onModuleDestroy(): Promise<void> {
    for (const { poller, running } of this.kinds.values()) {
      await poller.stop();
      await Promise.allSettled(running);
    }
  }

  private async claimAndRun(
    kind: string,
    handler: JobHandler,
    options: JobKindOptions,
    running: Set<Promise<void>>,
  ): Promise<boolean> {
    const free = options.concurrency - running.size;
    if (free <= 0) return false;
    const now = this.clock.now();
    const ids = await this.jobs.claimable([kind], now, free);
    for (const id of ids) {
      const leaseUntil = new Date(now.getTime() + options.leaseMs);
      const job = await this.transactions.run((tx) => this.jobs.claim(tx, id, this.workerId, now, leaseUntil));
      if (!job) continue;
      const run: Promise<void> = this.runOne(job, handler, options).finally(() => {
        running.delete(run);
        this.wake(kind);
      });
      running.add(run);
    }
    return false;
  }

  private async runOne(job: Job, handler: JobHandler, options: JobKindOptions): Promise<void> {
    let outcome: Parameters<JobsRepository['settle']>[4] = { status: 'done' };
    try {
      await withDeadline(handler(job), options.runTimeoutMs, `${job.kind} ${job.subject}`);
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
      this.logger.warn(`${job.kind} ${job.subject} attempt ${job.attempts} failed (${reason})`);
      outcome =
        job.attempts >= options.maxAttempts
          ? { status: 'failed', error: reason }
          : {
              status: 'queued',
              error: reason,
              retryAt: new Date(this.clock.now().getTime() + retryDelayMs(options.backoffMs, job.attempts)),
            };
    }
    try {
      await this.transactions.run((tx) => this.jobs.settle(tx, job.id, this.workerId, this.clock.now(), outcome));
    } catch (error) {
      // The lease ends and another claim runs the job again.
      this.logger.error(`settling ${job.kind} ${job.subject} failed: ${(error as Error).message}`);
    }
  }
}
