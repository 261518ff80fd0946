import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ClusterJobs } from '../scheduling/cluster-jobs.js';
import { DocumentTrashService } from './document-trash.service.js';

/** How often the service purges the trash (documents past TRASH_RETENTION_DAYS and their files). */
export const TRASH_PURGE_INTERVAL_MS = 60 * 60_000;
export const TRASH_PURGE_JOB = 'trash-purge';
/** The first purge runs this long after start, out of the way of start-up. */
const FIRST_PURGE_DELAY_MS = 60_000;

/** Runs the trash purge once per hour across all instances; stopped on shutdown. */
@Injectable()
export class TrashPurgeScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TrashPurgeScheduler.name);

  constructor(
    private readonly trash: DocumentTrashService,
    private readonly jobs: ClusterJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: TRASH_PURGE_JOB,
      everyMs: TRASH_PURGE_INTERVAL_MS,
      firstDelayMs: FIRST_PURGE_DELAY_MS,
      run: () => this.purge(),
    });
  }

  onApplicationShutdown(): void {
    this.jobs.cancel(TRASH_PURGE_JOB);
  }

  private async purge(): Promise<void> {
    const { documents, files } = await this.trash.purgeExpired();
    if (documents || files) this.logger.log(`Trash purge removed ${documents} document(s) and ${files} file(s)`);
  }
}
