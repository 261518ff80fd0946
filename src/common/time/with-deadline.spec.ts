import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from './with-deadline.js';

describe('withDeadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers what the work answers in time, and rejects work that never settles once the time is up', async () => {
    await expect(withDeadline(Promise.resolve(7), 1_000, 'a job')).resolves.toBe(7);
    let outcome = 'none yet';
    const hung = withDeadline(new Promise<number>(() => undefined), 1_000, 'a job').catch(
      (error: Error) => (outcome = error.message),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBe('none yet');
    await vi.advanceTimersByTimeAsync(1);
    await hung;
    expect(outcome).toBe('a job gave no answer within 1000 ms');
  });

  it('passes the work’s own failure through', async () => {
    await expect(withDeadline(Promise.reject(new Error('broken')), 1_000, 'a job')).rejects.toThrow('broken');
  });
});
