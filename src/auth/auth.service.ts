import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import { CLI_AUDIT_CONTEXT, type AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { ApiError } from '../common/errors/error-codes.js';
import { jwtConfig } from '../config/configuration.js';
import { UserResponseDto } from '../users/dto/user-response.dto.js';
import { UserSettingsDto, type MeResponseDto, type UpdateMeDto } from '../users/dto/user-settings.dto.js';
import type { User } from '../users/entities/user.entity.js';
import { PasswordHasher } from '../users/password-hasher.service.js';
import { UsersService } from '../users/users.service.js';
import type { ChangePasswordDto, TokenResponseDto } from './dto/change-password.dto.js';
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
    private readonly audit: AuditTrail,
  ) {
    this.settings = jwtSettings(tokenConfig);
  }

  /** Every attempt is audited: the username as typed on failure, the user on success. */
  async login({ username, password }: LoginDto, context: AuditContext = CLI_AUDIT_CONTEXT): Promise<LoginResponseDto> {
    const user = await this.users.findForLogin(username);
    // Always hash (against a dummy for unknown users) so timing does not reveal which usernames exist.
    const passwordMatches = await this.hasher.verify(user?.passwordHash, password);
    if (!user || !passwordMatches || !user.isActive) {
      await this.audit.recordAlone(context, {
        action: 'auth.login_failed',
        targetType: 'user',
        targetId: user?.id ?? null,
        changes: { username: { from: null, to: username } },
      });
      throw new ApiError('invalid_credentials', INVALID_CREDENTIALS);
    }
    await this.usernameThrottle.reset(username);
    await this.audit.recordAlone(
      { ...context, actorId: user.id },
      { action: 'auth.login_succeeded', targetType: 'user', targetId: user.id },
    );
    const { token, expiresIn } = await this.issueToken(user.id, user.tokenVersion);
    return { token, expiresIn, user: UserResponseDto.from(user) };
  }

  logout(userId: string, context: AuditContext): Promise<void> {
    return this.users.revokeTokens(userId, context, 'auth.logout');
  }

  /** The caller's own record and settings (GET /api/auth/me). */
  async me(userId: string): Promise<MeResponseDto> {
    return meOf(await this.users.get(userId));
  }

  /** Changes the caller's own settings (PATCH /api/auth/me). */
  async updateMe(userId: string, input: UpdateMeDto): Promise<MeResponseDto> {
    return meOf(await this.users.updateSettings(userId, input.settings));
  }

  /**
   * Changes the caller's own password after checking the current one, which counts against the
   * same per-username limit as login (429 once over it). Every earlier token stops working; the
   * answer carries a new one.
   */
  async changePassword(
    username: string,
    { currentPassword, newPassword }: ChangePasswordDto,
    context: AuditContext,
  ): Promise<TokenResponseDto> {
    await this.usernameThrottle.consume(username);
    const user = await this.users.findForLogin(username);
    const matches = await this.hasher.verify(user?.passwordHash, currentPassword);
    if (!user || !matches) {
      await this.audit.recordAlone(context, {
        action: 'auth.password_change_failed',
        targetType: 'user',
        targetId: user?.id ?? null,
      });
      throw new ApiError('invalid_credentials', 'The current password is incorrect.');
    }
    await this.usernameThrottle.reset(username);
    const version = await this.users.setPassword(user.id, newPassword, context, {
      action: 'auth.password_changed',
      actor: user,
    });
    return this.issueToken(user.id, version);
  }

  private async issueToken(userId: string, tokenVersion: number): Promise<TokenResponseDto> {
    const claims: TokenClaims = { sub: userId, ver: tokenVersion };
    const token = await this.jwt.signAsync(claims, {
      privateKey: this.settings.signingKey,
      algorithm: this.settings.algorithm,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: this.settings.expiresInSeconds,
    });
    return { token, expiresIn: this.settings.expiresInSeconds };
  }
}

function meOf(user: User): MeResponseDto {
  return { user: UserResponseDto.from(user), settings: UserSettingsDto.from(user) };
}
