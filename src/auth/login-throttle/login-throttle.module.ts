import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { loginThrottleConfig, redisConfig } from '../../config/configuration.js';
import { LoginThrottlerGuard } from './login-throttle.guard.js';
import {
  LOGIN_THROTTLE_STORAGE,
  MemoryThrottlerStorage,
  RedisThrottlerStorage,
  type ResettableThrottlerStorage,
} from './login-throttle.storage.js';
import { LOGIN_BY_IP, throttleKey, UsernameThrottle } from './username-throttle.service.js';

/** One storage per application: Redis when REDIS_URL is set (shared by instances), else memory. */
@Module({
  providers: [
    {
      provide: LOGIN_THROTTLE_STORAGE,
      inject: [redisConfig.KEY],
      useFactory: (redis: ConfigType<typeof redisConfig>): ResettableThrottlerStorage =>
        redis.url ? new RedisThrottlerStorage(redis.url, redis.keyPrefix) : new MemoryThrottlerStorage(),
    },
  ],
  exports: [LOGIN_THROTTLE_STORAGE],
})
class LoginThrottleStorageModule {}

/**
 * Everything about limiting password attempts: the storage, the per-address limit
 * (@nestjs/throttler, public API only), the per-username limit (UsernameThrottle), and the
 * LoginThrottle() route decorator. Import it where passwords are checked; use LoginThrottle() on
 * a login route, or UsernameThrottle.consume()/reset() around any other password check.
 */
@Module({
  imports: [
    LoginThrottleStorageModule,
    ThrottlerModule.forRootAsync({
      imports: [LoginThrottleStorageModule],
      inject: [loginThrottleConfig.KEY, LOGIN_THROTTLE_STORAGE],
      useFactory: (
        limits: ConfigType<typeof loginThrottleConfig>,
        storage: ResettableThrottlerStorage,
      ): ThrottlerModuleOptions => {
        const windowMs = limits.ipWindowSeconds * 1000;
        return {
          storage,
          setHeaders: false,
          throttlers: [
            {
              name: LOGIN_BY_IP,
              limit: limits.ipLimit,
              ttl: windowMs,
              blockDuration: windowMs,
              getTracker: (request) => String(request.ip),
              generateKey: (_context, tracker, name) => throttleKey(name, tracker),
            },
          ],
        };
      },
    }),
  ],
  providers: [UsernameThrottle, LoginThrottlerGuard],
  // The storage too: other password checks (share links) count their attempts in it.
  exports: [UsernameThrottle, LoginThrottlerGuard, LoginThrottleStorageModule],
})
export class LoginThrottleModule {}
