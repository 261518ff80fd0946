import type { Logger } from '@nestjs/common';

/**
 * Runs `work` every `intervalMs`, at once again while it reports more to do, and sooner when
 * woken. Never two runs at a time; a failing run is logged and retried at the next interval.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wokenDuringRun = false;

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Run within `delayMs` (or right after the current run). */
  wake(delayMs = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenDuringRun = true;
      return;
    }
    this.schedule(delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.stopped || this.running) return;
    let more = false;
    this.wokenDuringRun = false;
    this.running = (async () => {
      try {
        more = await this.work();
      } catch (error) {
        this.logger.error(`run failed: ${(error as Error).message}`);
      }
    })();
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.schedule(more || this.wokenDuringRun ? 0 : this.intervalMs);
  }
}
