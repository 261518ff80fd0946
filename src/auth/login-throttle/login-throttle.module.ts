import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { appConfig } from '../../config/app.config.js';
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
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>): ResettableThrottlerStorage =>
        config.redisUrl
          ? new RedisThrottlerStorage(config.redisUrl, config.redisKeyPrefix)
          : new MemoryThrottlerStorage(),
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
      inject: [appConfig.KEY, LOGIN_THROTTLE_STORAGE],
      useFactory: (
        config: ConfigType<typeof appConfig>,
        storage: ResettableThrottlerStorage,
      ): ThrottlerModuleOptions => {
        const windowMs = config.loginThrottle.ipWindowSeconds * 1000;
        return {
          storage,
          setHeaders: false,
          throttlers: [
            {
              name: LOGIN_BY_IP,
              limit: config.loginThrottle.ipLimit,
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
  exports: [UsernameThrottle, LoginThrottlerGuard],
})
export class LoginThrottleModule {}
