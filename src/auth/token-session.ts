import { ApiError } from '../common/errors/error-codes.js';
import type { AuthContext } from '../users/users.repository.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';

/** What a verified token says: whose it is and the token version it was issued with. */
export interface TokenSession {
  readonly userId: string;
  readonly tokenVersion: number;
}

/**
 * What passport-jwt hands the guard for a token it verified: the session and the token's `exp`
 * (seconds).
 */
export interface VerifiedToken {
  session: TokenSession;
  expiresAt: number;
}

/**
 * The caller, if the session is live: the token's user exists, is active and still has the
 * token's version (logout, a password change or an administrator bumps it). Otherwise 401.
 */
export function sessionUser(session: TokenSession, caller: AuthContext | null): AuthenticatedUser {
  if (!isLiveSession(session, caller)) throw sessionEnded(caller);
  const user: AuthenticatedUser = { id: caller.id, username: caller.username, roles: caller.roles };
  if (caller.projectIds) user.projectIds = caller.projectIds;
  return user;
}

/** Whether the token's user exists, is active and still has the token's version. */
export function isLiveSession(session: TokenSession, caller: AuthContext | null): caller is AuthContext {
  return caller !== null && caller.isActive && caller.tokenVersion === session.tokenVersion;
}

/** Why a session is not live: the user is gone or inactive, or the token was revoked. */
function sessionEnded(caller: AuthContext | null): ApiError {
  if (!caller || !caller.isActive) {
    return new ApiError('unauthorized', 'The token belongs to a user that no longer exists or is inactive.');
  }
  return new ApiError('unauthorized', 'The token has been revoked; log in again.');
}
