import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { ApiError } from '../common/errors/error-codes.js';
import { jwtConfig } from '../config/configuration.js';
import { jwtSettings, type TokenClaims } from './jwt-options.js';
import type { VerifiedToken } from './token-session.js';

/** The bearer token of a request, read as passport-jwt reads it (the guard keys verified tokens by it). */
export const bearerTokenOf = ExtractJwt.fromAuthHeaderAsBearerToken();

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(jwtConfig.KEY) tokenConfig: ConfigType<typeof jwtConfig>) {
    const settings = jwtSettings(tokenConfig);
    super({
      jwtFromRequest: bearerTokenOf,
      // jsonwebtoken verifies with a KeyObject at ~30 µs instead of ~1.5 ms for a string; passport-jwt's
      // types predate KeyObject support but it passes the key straight through.
      secretOrKey: settings.verificationKey as unknown as Buffer,
      algorithms: settings.algorithms,
      issuer: settings.issuer,
      audience: settings.audience,
      ignoreExpiration: false,
    });
  }

  /** The token's signature and claims only: the guard checks the session (see JwtAuthGuard). */
  validate(claims: TokenClaims): VerifiedToken {
    // jsonwebtoken accepts a token without exp; ours always have one, so its absence is forgery.
    if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
      throw new ApiError('unauthorized', 'The token is missing required claims; log in again.');
    }
    return { session: { userId: claims.sub, tokenVersion: claims.ver }, expiresAt: claims.exp };
  }
}
