import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { Authenticated, Public } from '../common/http/route-access.js';
import { MeResponseDto, UpdateMeDto } from '../users/dto/user-settings.dto.js';
import { AuthService } from './auth.service.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ChangePasswordDto, TokenResponseDto } from './dto/change-password.dto.js';
import { LoginDto } from './dto/login.dto.js';
import { LoginResponseDto } from './dto/login-response.dto.js';
import { LoginThrottle } from './login-throttle/login-throttle.guard.js';

@ApiTags('auth')
@Controller('api/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @LoginThrottle()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange a username and password for a bearer token',
    description:
      'Returns a signed JWT (see the bearer scheme) and the user with their roles. Unknown usernames, wrong passwords and ' +
      'inactive accounts all answer the same 401 invalid_credentials. Attempts are rate-limited per client ' +
      'address and per username (429 too_many_requests with Retry-After); a successful login clears the ' +
      "username's count. Every attempt is recorded in the audit trail.",
  })
  @ApiOkResponse({ type: LoginResponseDto, description: 'The bearer token, its lifetime and the user.' })
  @ApiErrors('invalid_credentials', 'too_many_requests')
  login(@Body() body: LoginDto, @RequestAudit() context: AuditContext): Promise<LoginResponseDto> {
    return this.auth.login(body, context);
  }

  @Authenticated()
  @Post('logout')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Revoke every token of the calling user',
    description: "Bumps the user's token version: this token and every other one issued before stop working.",
  })
  @ApiNoContentResponse({ description: "All of the caller's tokens are revoked." })
  @ApiErrors('invalid_json', 'unauthorized', 'request_timeout', 'payload_too_large', 'unsupported_media_type')
  // No body is read, but one sent is parsed first (and refused as a request with a body would be).
  async logout(@CurrentUser() user: AuthenticatedUser, @RequestAudit() context: AuditContext): Promise<void> {
    await this.auth.logout(user.id, context);
  }

  @Authenticated()
  @Get('me')
  @ApiBearerAuth()
  @ApiOperation({
    summary: "The caller's own user record and settings",
    description: 'The same user shape login returns, and the settings (time zone, quiet hours, urgent bypass, snooze).',
  })
  @ApiOkResponse({ type: MeResponseDto })
  @ApiErrors('unauthorized')
  me(@CurrentUser() user: AuthenticatedUser): Promise<MeResponseDto> {
    return this.auth.me(user.id);
  }

  @Authenticated()
  @Patch('me')
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Change the caller's own settings",
    description:
      'timezone (IANA name), quietHours ({start, end} as local "HH:MM", or null) and urgentBypass; settings ' +
      'left out keep their value. E-mails due in quiet hours wait until they end; urgent events pass when ' +
      'urgentBypass is on. Answers as GET /api/auth/me.',
  })
  @ApiOkResponse({ type: MeResponseDto })
  @ApiErrors('unauthorized')
  updateMe(@CurrentUser() user: AuthenticatedUser, @Body() body: UpdateMeDto): Promise<MeResponseDto> {
    return this.auth.updateMe(user.id, body);
  }

  @Authenticated()
  @LoginThrottle()
  @Post('password')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Change the caller’s own password',
    description:
      'Checks currentPassword (401 invalid_credentials when wrong; attempts count against the per-username ' +
      'and per-address login limits, 429 once over them), applies the password policy (400 weak_password with ' +
      'zxcvbn feedback), then revokes every earlier token of the user and answers a new one.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiErrors('weak_password', 'invalid_credentials', 'unauthorized', 'too_many_requests')
  changePassword(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: ChangePasswordDto,
    @RequestAudit() context: AuditContext,
  ): Promise<TokenResponseDto> {
    return this.auth.changePassword(user.username, body, context);
  }
}
