import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DocumentTrashService } from './document-trash.service.js';

/** How often the service purges the trash (documents past TRASH_RETENTION_DAYS and their files). */
export const TRASH_PURGE_INTERVAL_MS = 60 * 60_000;
/** The first purge runs this long after start, out of the way of start-up. */
const FIRST_PURGE_DELAY_MS = 60_000;

/** Runs the trash purge inside the service: shortly after start, then every hour; stopped on shutdown. */
@Injectable()
export class TrashPurgeScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TrashPurgeScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly trash: DocumentTrashService) {}

  onApplicationBootstrap(): void {
    this.schedule(FIRST_PURGE_DELAY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.running = this.purge().finally(() => {
        this.running = undefined;
        if (this.timer) this.schedule(TRASH_PURGE_INTERVAL_MS);
      });
    }, delay);
    this.timer.unref();
  }

  private async purge(): Promise<void> {
    try {
      const { documents, files } = await this.trash.purgeExpired();
      if (documents || files) this.logger.log(`Trash purge removed ${documents} document(s) and ${files} file(s)`);
    } catch (error) {
      // Never a stack trace or SQL in the log: the next run tries again.
      this.logger.warn(
        `Trash purge failed (${(error as { code?: string }).code ?? (error as Error).name}); retrying later`,
      );
    }
  }
}
