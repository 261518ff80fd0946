import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.js';
import {
  LOGIN_THROTTLE_STORAGE,
  type ResettableThrottlerStorage,
} from '../auth/login-throttle/login-throttle.storage.js';
import { throttleKey } from '../auth/login-throttle/username-throttle.service.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Clock } from '../common/time/clock.js';
import {
  governanceConfig,
  loginThrottleConfig,
  type GovernanceConfig,
  type LoginThrottleConfig,
} from '../config/configuration.js';
import { Transactions } from '../database/transactions.js';
import { DocumentFilesService, type ContentVersion } from '../documents/document-files.service.js';
import type { DocumentWithAccess } from '../documents/documents.repository.js';
import { DocumentsService } from '../documents/documents.service.js';
import { PasswordHasher } from '../users/password-hasher.service.js';
import { linkServes, type ShareLink } from './entities/share-link.entity.js';
import { ShareDownloads, type ShareDownload } from './share-downloads.js';
import { SharesRepository, type ShareWithCreator } from './shares.repository.js';

export interface ShareRequest {
  expiresAt: string;
  password?: string;
  maxDownloads?: number;
  version?: number;
}

export interface CreatedShare {
  id: string;
  token: string;
  url: string;
}

const SHARE_PASSWORD_THROTTLE = 'share-password';
const DAY_MS = 24 * 60 * 60_000;

/** Tokens are 256 random bits, base64url: 43 characters. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** One answer for every link that cannot serve, whatever the reason: unknown, expired, revoked, used up, trashed. */
function unavailable(): ApiError {
  return new ApiError('share_not_found', 'This link does not exist or is no longer available.');
}

/**
 * Share links: a contributor makes a link to a document's file, valid until a date (at most
 * SHARE_MAX_DAYS), optionally with a password (argon2, attempts throttled per link and address like
 * logins) and a download limit. Only the token's SHA-256 is stored. Every use is audited.
 */
@Injectable()
export class SharesService {
  constructor(
    private readonly shares: SharesRepository,
    private readonly documents: DocumentsService,
    private readonly files: DocumentFilesService,
    private readonly hasher: PasswordHasher,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly downloads: ShareDownloads,
    private readonly clock: Clock,
    @Inject(LOGIN_THROTTLE_STORAGE) private readonly throttle: ResettableThrottlerStorage,
    @Inject(governanceConfig.KEY) private readonly config: GovernanceConfig,
    @Inject(loginThrottleConfig.KEY) private readonly limits: LoginThrottleConfig,
  ) {}

  async create(
    documentId: string,
    input: ShareRequest,
    user: AuthenticatedUser,
    audit: AuditContext,
  ): Promise<CreatedShare> {
    const access = await this.contributable(documentId, user);
    const now = this.clock.now();
    const expiresAt = new Date(input.expiresAt);
    if (expiresAt.getTime() <= now.getTime())
      throw new ApiError('validation_failed', 'expiresAt must be in the future.');
    if (expiresAt.getTime() > now.getTime() + this.config.shareMaxDays * DAY_MS) {
      throw new ApiError(
        'validation_failed',
        `expiresAt must be at most ${this.config.shareMaxDays} days from now (SHARE_MAX_DAYS).`,
      );
    }
    // An unknown version is 404 version_not_found, as on the content route.
    if (input.version !== undefined) await this.files.contentVersion(documentId, user, input.version);
    const token = randomBytes(32).toString('base64url');
    const link: ShareLink = {
      id: randomUUID(),
      documentId,
      tokenHash: tokenHash(token),
      createdBy: user.id,
      createdAt: now,
      expiresAt,
      passwordHash: input.password === undefined ? null : await this.hasher.hash(input.password),
      maxDownloads: input.maxDownloads ?? null,
      downloads: 0,
      version: input.version ?? null,
      revokedAt: null,
    };
    await this.transactions.run(async (tx) => {
      await this.shares.insert(tx, link);
      await this.audit.record(tx, audit, {
        action: 'share.created',
        targetType: 'share',
        targetId: link.id,
        changes: {
          documentId: { from: null, to: access.document.id },
          expiresAt: { from: null, to: expiresAt.toISOString() },
          password: { from: null, to: link.passwordHash !== null },
          maxDownloads: { from: null, to: link.maxDownloads },
          version: { from: null, to: link.version },
        },
      });
    });
    return { id: link.id, token, url: `${this.config.shareBaseUrl}/s/${token}` };
  }

  async list(documentId: string, user: AuthenticatedUser): Promise<ShareWithCreator[]> {
    await this.contributable(documentId, user);
    return this.shares.list(documentId);
  }

  /** Revokes a link: its creator, a manager of the project or documents:update; 404 for anyone else who cannot see it. */
  async revoke(id: string, user: AuthenticatedUser, audit: AuditContext): Promise<void> {
    const link = await this.shares.findById(id);
    const notFound = new ApiError('share_not_found', `No share link has the id ${id}.`);
    if (!link) throw notFound;
    let access: DocumentWithAccess;
    try {
      access = await this.documents.readableAccess(link.documentId, user);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw notFound;
      throw error;
    }
    const allowed =
      link.createdBy === user.id || access.projectRole === 'manager' || hasPermission(user, 'documents', 'update');
    if (!allowed) {
      throw new ApiError(
        'forbidden',
        'Only the creator of the link, a project manager or a user whose role grants documents:update may revoke it.',
      );
    }
    if (link.revokedAt) return;
    await this.transactions.run(async (tx) => {
      await this.shares.revoke(tx, id, this.clock.now());
      await this.audit.record(tx, audit, {
        action: 'share.revoked',
        targetType: 'share',
        targetId: id,
        changes: { revoked: { from: false, to: true } },
      });
    });
  }

  /**
   * The file a link serves, for anyone holding its token: 404 share_not_found alike for every link
   * that cannot serve; a password-protected link wants its password (401 after the argon2 check,
   * 429 past the attempts per link and address). `download` counts the use (against maxDownloads
   * before serving, if the link has one) and tells the sharer (share.accessed), in one transaction
   * with its audit event (ShareDownloads).
   */
  async open(
    token: string,
    password: string | undefined,
    audit: AuditContext,
    { download }: { download: boolean },
  ): Promise<ContentVersion> {
    const link = SHARE_TOKEN_PATTERN.test(token) ? await this.shares.findByTokenHash(tokenHash(token)) : null;
    if (!link) throw unavailable();
    const now = this.clock.now();
    const content = linkServes(link, now)
      ? await this.files.sharedVersion(link.documentId, link.version ?? undefined)
      : null;
    if (!content) {
      await this.refused(link, audit, 'unavailable');
      throw unavailable();
    }
    if (link.passwordHash !== null) await this.checkPassword(link, password, audit);
    if (!download) {
      await this.audit.recordAlone(audit, { action: 'share.viewed', targetType: 'share', targetId: link.id });
      return content;
    }
    const { id, projectId, title } = content.document;
    const use: ShareDownload = {
      linkId: link.id,
      sharerId: link.createdBy,
      document: { id, projectId, title },
      audit,
      at: now,
    };
    // Only a limit needs the count before the bytes; other downloads are recorded while they are sent.
    if (link.maxDownloads === null) this.downloads.record(use);
    else if (!(await this.downloads.count(use))) throw unavailable();
    return content;
  }

  private async checkPassword(link: ShareLink, password: string | undefined, audit: AuditContext): Promise<void> {
    const key = throttleKey(SHARE_PASSWORD_THROTTLE, `${link.id}:${audit.ip ?? ''}`);
    const windowMs = this.limits.usernameWindowSeconds * 1000;
    const { isBlocked, timeToBlockExpire } = await this.throttle.increment(
      key,
      windowMs,
      this.limits.usernameLimit,
      windowMs,
      SHARE_PASSWORD_THROTTLE,
    );
    if (isBlocked) {
      const seconds = Math.max(1, timeToBlockExpire);
      throw new ApiError(
        'too_many_requests',
        `Too many password attempts for this link; retry after ${seconds} seconds.`,
        { 'retry-after': String(seconds) },
      );
    }
    // Always the full argon2 check, a missing password included: no answer comes faster than another.
    if (!(await this.hasher.verify(link.passwordHash!, password ?? ''))) {
      await this.refused(link, audit, 'password');
      throw new ApiError(
        'share_password_required',
        'This link needs its password; send it in the X-Share-Password header.',
      );
    }
    await this.throttle.reset(key);
  }

  private refused(link: ShareLink, audit: AuditContext, reason: 'unavailable' | 'password'): Promise<void> {
    return this.audit.recordAlone(audit, {
      action: 'share.refused',
      targetType: 'share',
      targetId: link.id,
      changes: { reason: { from: null, to: reason } },
    });
  }

  /** The document, if the caller may contribute to it (contributor, manager, documents:update); 404/403 else. */
  private async contributable(documentId: string, user: AuthenticatedUser): Promise<DocumentWithAccess> {
    const access = await this.documents.readableAccess(documentId, user);
    const { projectRole } = access;
    if (projectRole !== 'contributor' && projectRole !== 'manager' && !hasPermission(user, 'documents', 'update')) {
      throw new ApiError(
        'forbidden',
        'Share links are for contributors and managers of the project, and users whose role grants documents:update.',
      );
    }
    return access;
  }
}
