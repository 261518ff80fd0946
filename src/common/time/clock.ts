import { Injectable } from '@nestjs/common';

/** Where the service reads the time, so that tests can move it instead of sleeping. */
export abstract class Clock {
  abstract now(): Date;
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
