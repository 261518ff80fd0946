import { Inject, Injectable, UseGuards, applyDecorators, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ApiErrors } from '../../common/errors/api-errors.decorator.js';
import { tooManyAttempts, UsernameThrottle, usernameTracker } from './username-throttle.service.js';

/**
 * Per client address through @nestjs/throttler (configured in LoginThrottleModule), then per
 * username through UsernameThrottle, the counter other password checks share. Bodies without a
 * username string fail validation afterwards; only the per-address limit applies to them.
 */
@Injectable()
export class LoginThrottlerGuard extends ThrottlerGuard {
  @Inject(UsernameThrottle) private readonly usernames: UsernameThrottle;

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const username = context.switchToHttp().getRequest<{ body?: { username?: unknown } }>().body?.username;
    if (usernameTracker(username) !== undefined) await this.usernames.consume(username as string);
    return true;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw tooManyAttempts(detail.timeToBlockExpire || detail.timeToExpire);
  }
}

/** Rate-limits a login route per client address and per username (see LoginThrottleModule for the limits). */
export const LoginThrottle = () => applyDecorators(UseGuards(LoginThrottlerGuard), ApiErrors('too_many_requests'));
