import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { CurrentUser } from './current-user.decorator.js';
import { Authenticated, Public } from '../common/http/route-access.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { AuthService } from './auth.service.js';
import type { AuthenticatedUser } from './authenticated-user.js';
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
      "username's count.",
  })
  @ApiOkResponse({ type: LoginResponseDto, description: 'The bearer token, its lifetime and the user.' })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: 'validation_failed, invalid_json or bad_request: the body or the request line is invalid',
  })
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'invalid_credentials' })
  @ApiCommonErrors({ body: true })
  login(@Body() body: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(body);
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
  @ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'unauthorized: no valid bearer token' })
  // No body is read, but one sent is parsed first (and refused as a request with a body would be).
  @ApiCommonErrors({ body: true })
  async logout(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.auth.logout(user.id);
  }
}
