import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { ApiError } from '../common/errors/error-codes.js';
import { jwtConfig } from '../config/configuration.js';
import { UsersService } from '../users/users.service.js';
import type { AuthenticatedUser } from './authenticated-user.js';
import { jwtSettings, type TokenClaims } from './jwt-options.js';

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(jwtConfig.KEY) tokenConfig: ConfigType<typeof jwtConfig>,
    private readonly users: UsersService,
  ) {
    const settings = jwtSettings(tokenConfig);
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // jsonwebtoken verifies with a KeyObject at ~30 µs instead of ~1.5 ms for a string; passport-jwt's
      // types predate KeyObject support but it passes the key straight through.
      secretOrKey: settings.verificationKey as unknown as Buffer,
      algorithms: settings.algorithms,
      issuer: settings.issuer,
      audience: settings.audience,
      ignoreExpiration: false,
    });
  }

  async validate(claims: TokenClaims): Promise<AuthenticatedUser> {
    // jsonwebtoken accepts a token without exp; ours always have one, so its absence is forgery.
    if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
      throw new ApiError('unauthorized', 'The token is missing required claims; log in again.');
    }
    const user = await this.users.findAuthContext(claims.sub);
    if (!user || !user.isActive) {
      throw new ApiError('unauthorized', 'The token belongs to a user that no longer exists or is inactive.');
    }
    if (user.tokenVersion !== claims.ver) {
      throw new ApiError('unauthorized', 'The token has been revoked; log in again.');
    }
    return { id: user.id, username: user.username, roles: user.roles };
  }
}
