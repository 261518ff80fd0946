import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiError } from '../../common/errors/error-codes.js';
import { identityKey } from '../../common/text/identity-key.js';
import { loginThrottleConfig } from '../../config/configuration.js';
import { LOGIN_THROTTLE_STORAGE, type ResettableThrottlerStorage } from './login-throttle.storage.js';

export const LOGIN_BY_IP = 'login-ip';
export const LOGIN_BY_USERNAME = 'login-username';

/** The storage key of a throttle counter. */
export function throttleKey(throttler: string, tracker: string): string {
  return `throttle:${throttler}:${tracker}`;
}

/** Usernames that would collide as accounts (see identityKey) share one counter. */
export function usernameTracker(username: unknown): string | undefined {
  return typeof username === 'string' ? identityKey(username.trim()) : undefined;
}

export function tooManyAttempts(retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError('too_many_requests', `Too many login attempts; retry after ${seconds} seconds.`, {
    'retry-after': String(seconds),
  });
}

/**
 * The per-username limit on password attempts (LOGIN_RATE_LIMIT_PER_USERNAME per
 * LOGIN_RATE_WINDOW_PER_USERNAME_SECONDS, then blocked for a window), shared by every instance
 * through the configured storage. Login uses it through LoginThrottle(); any other check of a
 * user's password (the admin API) calls consume() before checking and reset() after a success,
 * so all of them share one count per username.
 */
@Injectable()
export class UsernameThrottle {
  constructor(
    @Inject(loginThrottleConfig.KEY) private readonly limits: ConfigType<typeof loginThrottleConfig>,
    @Inject(LOGIN_THROTTLE_STORAGE) private readonly storage: ResettableThrottlerStorage,
  ) {}

  /** Counts one attempt for the username; throws 429 too_many_requests (with Retry-After) once over the limit. */
  async consume(username: string): Promise<void> {
    const { usernameLimit, usernameWindowSeconds } = this.limits;
    const windowMs = usernameWindowSeconds * 1000;
    const record = await this.storage.increment(
      this.keyOf(username),
      windowMs,
      usernameLimit,
      windowMs,
      LOGIN_BY_USERNAME,
    );
    if (record.isBlocked) throw tooManyAttempts(record.timeToBlockExpire || record.timeToExpire);
  }

  /** Forgets the username's count (after a successful password check). */
  reset(username: string): Promise<void> {
    return this.storage.reset(this.keyOf(username));
  }

  private keyOf(username: string): string {
    return throttleKey(LOGIN_BY_USERNAME, usernameTracker(username)!);
  }
}
