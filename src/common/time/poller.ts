import type { Logger } from '@nestjs/common';

/**
 * Runs `work` every `intervalMs`, at once again while it reports more to do, and sooner when
 * woken. Never two runs at a time; a failing run is logged and retried at the next interval.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled run is due (performance.now()); a later wake does not push it back. */
  private dueAt = Infinity;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** A wake that came during a run: the delay it asked for (undefined: none came). */
  private wokenDuringRun: number | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Run within `delayMs` (counted from the end of the current run, if one is going). */
  wake(delayMs = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenDuringRun = Math.min(this.wokenDuringRun ?? delayMs, delayMs);
      return;
    }
    this.schedule(delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = Infinity;
    await this.running;
  }

  private schedule(delayMs: number): void {
    const dueAt = performance.now() + delayMs;
    // Wakes faster than the delay (commits at 100/s, each waking 15 ms later) would otherwise postpone the run forever.
    if (this.timer && dueAt >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = dueAt;
    this.timer = setTimeout(() => void this.run(), delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.dueAt = Infinity;
    if (this.stopped || this.running) return;
    let more = false;
    this.wokenDuringRun = undefined;
    this.running = (async () => {
      try {
        more = await this.work();
      } catch (error) {
        this.logger.error(`run failed: ${(error as Error).message}`);
      }
    })();
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.schedule(more ? 0 : (this.wokenDuringRun ?? this.intervalMs));
  }
}
