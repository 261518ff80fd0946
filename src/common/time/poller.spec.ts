import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Poller } from './poller.js';

describe('Poller', () => {
  const logger = new Logger('PollerSpec');
  let runs: number[];
  let poller: Poller | undefined;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    runs = [];
  });

  afterEach(async () => {
    await poller?.stop();
    vi.useRealTimers();
  });

  const start = (work: () => Promise<boolean> = async () => false) => {
    poller = new Poller(
      250,
      async () => {
        runs.push(performance.now());
        return work();
      },
      logger,
    );
    poller.start();
  };

  it('runs at start, then every interval', async () => {
    start();
    await vi.advanceTimersByTimeAsync(600);
    expect(runs.map(Math.round)).toEqual([0, 250, 500]);
  });

  it('is not postponed by wakes that come faster than their delay', async () => {
    start();
    await vi.advanceTimersByTimeAsync(1);
    runs = [];
    // A change every 10 ms, each waking the poller 15 ms later: the first wake's run must still happen.
    for (let i = 0; i < 5; i++) {
      poller!.wake(15);
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(Math.round(runs[0])).toBe(16);
  });

  it('runs again after a stop and a new start', async () => {
    start();
    await vi.advanceTimersByTimeAsync(100);
    await poller!.stop();
    poller!.start();
    await vi.advanceTimersByTimeAsync(1);
    expect(runs.map(Math.round)).toEqual([0, 100]);
  });

  it('honours the delay of a wake that came during a run, after the run', async () => {
    let release: () => void = () => undefined;
    const firstRun = new Promise<boolean>((resolve) => (release = () => resolve(false)));
    start(() => (runs.length === 1 ? firstRun : Promise.resolve(false)));
    await vi.advanceTimersByTimeAsync(1);
    poller!.wake(25);
    await vi.advanceTimersByTimeAsync(100);
    release();
    await vi.advanceTimersByTimeAsync(24);
    expect(runs.length).toBe(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(runs.length).toBe(2);
  });
});
