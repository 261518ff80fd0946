import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { AuditModule } from '../audit/audit.module.js';
import { UsersModule } from '../users/users.module.js';
import { AuthController } from './auth.controller.js';
import { AccessTokens } from './access-tokens.js';
import { AuthService } from './auth.service.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { LoginThrottleModule } from './login-throttle/login-throttle.module.js';

@Module({
  imports: [
    UsersModule,
    AuditModule,
    // Signing options are passed per call from jwtSettings(), the same object AccessTokens verifies with.
    JwtModule.register({}),
    LoginThrottleModule,
  ],
  controllers: [AuthController],
  providers: [AuthService, AccessTokens, { provide: APP_GUARD, useClass: JwtAuthGuard }],
})
export class AuthModule {}
