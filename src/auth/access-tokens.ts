import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import { ApiError } from '../common/errors/error-codes.js';
import { jwtConfig } from '../config/configuration.js';
import { jwtSettings, type TokenClaims } from './jwt-options.js';
import type { TokenSession } from './token-session.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/** Reads the session a request's bearer token carries: signature, algorithm, issuer, audience and expiry checked. */
@Injectable()
export class AccessTokens {
  private readonly settings: ReturnType<typeof jwtSettings>;

  constructor(
    @Inject(jwtConfig.KEY) tokenConfig: ConfigType<typeof jwtConfig>,
    private readonly jwt: JwtService,
  ) {
    this.settings = jwtSettings(tokenConfig);
  }

  /** The token's session; 401 for a missing, malformed, forged, expired or incomplete token. */
  sessionOf(authorization: string | undefined): TokenSession {
    const token = BEARER.exec(authorization ?? '')?.[1];
    if (!token) {
      throw new ApiError(
        'unauthorized',
        'Send a bearer token: Authorization: Bearer <token> (from POST /api/auth/login).',
      );
    }
    let claims: TokenClaims;
    try {
      claims = this.jwt.verify<TokenClaims>(token, {
        // jsonwebtoken takes the KeyObject as it is; @nestjs/jwt's type predates KeyObject support.
        secret: this.settings.verificationKey as unknown as Buffer,
        algorithms: this.settings.algorithms,
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
    } catch (error) {
      throw new ApiError('unauthorized', describeTokenProblem(error));
    }
    // jsonwebtoken accepts a token without exp; ours always have one, so its absence is forgery.
    if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
      throw new ApiError('unauthorized', 'The token is missing required claims; log in again.');
    }
    return { userId: claims.sub, tokenVersion: claims.ver };
  }
}

function describeTokenProblem(error: unknown): string {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TokenExpiredError') return 'The token has expired; log in again.';
  if (name === 'NotBeforeError') return 'The token is not valid yet.';
  return 'The token is malformed, wrongly signed or not issued by this service.';
}
