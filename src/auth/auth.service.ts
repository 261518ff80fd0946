import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import { ApiError } from '../common/errors/error-codes.js';
import { jwtConfig } from '../config/configuration.js';
import { UserResponseDto } from '../users/dto/user-response.dto.js';
import { PasswordHasher } from '../users/password-hasher.service.js';
import { UsersService } from '../users/users.service.js';
import type { LoginDto } from './dto/login.dto.js';
import type { LoginResponseDto } from './dto/login-response.dto.js';
import { jwtSettings, type TokenClaims } from './jwt-options.js';
import { UsernameThrottle } from './login-throttle/username-throttle.service.js';

const INVALID_CREDENTIALS = 'The username or password is incorrect, or the account is inactive.';

@Injectable()
export class AuthService {
  private readonly settings: ReturnType<typeof jwtSettings>;

  constructor(
    @Inject(jwtConfig.KEY) tokenConfig: ConfigType<typeof jwtConfig>,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly jwt: JwtService,
    private readonly usernameThrottle: UsernameThrottle,
  ) {
    this.settings = jwtSettings(tokenConfig);
  }

  async login({ username, password }: LoginDto): Promise<LoginResponseDto> {
    const user = await this.users.findForLogin(username);
    // Always hash (against a dummy for unknown users) so timing does not reveal which usernames exist.
    const passwordMatches = await this.hasher.verify(user?.passwordHash, password);
    if (!user || !passwordMatches || !user.isActive) {
      throw new ApiError('invalid_credentials', INVALID_CREDENTIALS);
    }
    await this.usernameThrottle.reset(username);
    const claims: TokenClaims = { sub: user.id, ver: user.tokenVersion };
    const token = await this.jwt.signAsync(claims, {
      privateKey: this.settings.signingKey,
      algorithm: this.settings.algorithm,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: this.settings.expiresInSeconds,
    });
    return { token, expiresIn: this.settings.expiresInSeconds, user: UserResponseDto.from(user) };
  }

  logout(userId: string): Promise<void> {
    return this.users.revokeTokens(userId);
  }
}
