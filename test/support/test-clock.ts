import { Clock } from '../../src/common/time/clock.js';

/** A clock the test moves: pass it to createTestApp({ clock }) and advance it instead of sleeping. */
export class TestClock extends Clock {
  private at: number;

  constructor(start: Date = new Date()) {
    super();
    this.at = start.getTime();
  }

  now(): Date {
    return new Date(this.at);
  }

  set(at: Date): void {
    this.at = at.getTime();
  }

  advance(ms: number): Date {
    this.at += ms;
    return this.now();
  }
}
