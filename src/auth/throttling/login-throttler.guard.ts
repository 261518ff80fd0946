import { Injectable, UseGuards, applyDecorators, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerLimitDetail } from '@nestjs/throttler/dist/throttler.guard.interface.js';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/error-codes.js';
import { ErrorResponseDto } from '../../common/errors/error-response.dto.js';

export const LOGIN_BY_IP = 'login-ip';
export const LOGIN_BY_USERNAME = 'login-username';

/** The storage key of a login counter; AuthService uses it to reset a username after success. */
export function loginThrottleKey(throttler: string, tracker: string): string {
  return `throttle:${throttler}:${tracker}`;
}

export function usernameTracker(username: unknown): string | undefined {
  return typeof username === 'string' ? username.trim().toLowerCase() : undefined;
}

@Injectable()
export class LoginThrottlerGuard extends ThrottlerGuard {
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return loginThrottleKey(throttlerName, tracker);
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const seconds = Math.max(1, detail.timeToBlockExpire || detail.timeToExpire);
    throw new ApiError('too_many_requests', `Too many login attempts; retry after ${seconds} seconds.`, {
      'retry-after': String(seconds),
    });
  }
}

/** Rate-limits login per client address and per username (see AuthModule for the limits). */
export const LoginThrottle = () =>
  applyDecorators(
    UseGuards(LoginThrottlerGuard),
    ApiTooManyRequestsResponse({
      type: ErrorResponseDto,
      description: 'too_many_requests: login rate limit reached; the Retry-After header says when to retry',
    }),
  );
