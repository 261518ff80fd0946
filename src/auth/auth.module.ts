import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { loginThrottleConfig, redisConfig } from '../config/configuration.js';
import { UsersModule } from '../users/users.module.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { JwtStrategy } from './jwt.strategy.js';
import {
  LOGIN_THROTTLE_STORAGE,
  MemoryThrottlerStorage,
  RedisThrottlerStorage,
  type ResettableThrottlerStorage,
} from './throttling/login-throttle.storage.js';
import { LOGIN_BY_IP, LOGIN_BY_USERNAME, usernameTracker } from './throttling/login-throttler.guard.js';

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

@Module({
  imports: [
    UsersModule,
    PassportModule,
    // Signing options are passed per call from jwtSettings(), the same object the strategy verifies with.
    JwtModule.register({}),
    LoginThrottleStorageModule,
    ThrottlerModule.forRootAsync({
      imports: [LoginThrottleStorageModule],
      inject: [loginThrottleConfig.KEY, LOGIN_THROTTLE_STORAGE],
      useFactory: (
        limits: ConfigType<typeof loginThrottleConfig>,
        storage: ResettableThrottlerStorage,
      ): ThrottlerModuleOptions => {
        return {
          storage,
          setHeaders: false,
          throttlers: [
            {
              name: LOGIN_BY_IP,
              limit: limits.ipLimit,
              ttl: limits.ipWindowSeconds * 1000,
              blockDuration: limits.ipWindowSeconds * 1000,
              getTracker: (request) => String(request.ip),
            },
            {
              name: LOGIN_BY_USERNAME,
              limit: limits.usernameLimit,
              ttl: limits.usernameWindowSeconds * 1000,
              blockDuration: limits.usernameWindowSeconds * 1000,
              getTracker: (request) =>
                usernameTracker((request.body as { username?: unknown } | undefined)?.username) ?? '',
              // Bodies without a username string fail validation; only the per-IP limit applies to them.
              skipIf: (context) =>
                usernameTracker(
                  context.switchToHttp().getRequest<{ body?: { username?: unknown } }>().body?.username,
                ) === undefined,
            },
          ],
        };
      },
    }),
  ],
  controllers: [AuthController],
  providers: [AuthService, JwtStrategy, { provide: APP_GUARD, useClass: JwtAuthGuard }],
})
export class AuthModule {}
