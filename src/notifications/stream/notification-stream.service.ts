import type { OutgoingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jwtSettings, type TokenClaims } from '../../auth/jwt-options.js';
import { isLiveSession } from '../../auth/token-session.js';
import { ApiError } from '../../common/errors/error-codes.js';
import { jwtConfig, notificationsConfig } from '../../config/configuration.js';
import { UsersService } from '../../users/users.service.js';
import { NotificationDto } from '../dto/notification-list-response.dto.js';
import { NotificationsRepository } from '../notifications.repository.js';
import { ticketId } from '../notifications.service.js';
import { NotificationHub, type HubMessage } from './notification-hub.js';

/** Who a stream is for, and the token it lives by. */
export interface StreamSession {
  userId: string;
  tokenVersion: number;
  tokenExpiresAt: Date;
}

/** An open stream, as the session sweep sees it. */
interface LiveStream {
  session: StreamSession;
  close(): void;
}

/**
 * A stream whose unsent output stays above `maxBufferedBytes` for `maxStalledMs` is closed (the
 * client reads too slowly or not at all); it resumes with Last-Event-ID. Checked on every write.
 */
export interface StreamWriteLimits {
  maxBufferedBytes: number;
  maxStalledMs: number;
  /** Milliseconds on a monotonic clock. */
  now(): number;
}

export const STREAM_WRITE_LIMITS: StreamWriteLimits = {
  maxBufferedBytes: 1024 * 1024,
  maxStalledMs: 30_000,
  now: () => performance.now(),
};

/** At most this many notifications are replayed for a Last-Event-ID. */
const REPLAY_LIMIT = 1_000;
/** The session (logout, deactivation) is checked at least this often, so a stream ends within 30 s. */
const MAX_SESSION_CHECK_SECONDS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Server-Sent Events of one user's notifications. The response is written on the raw Node
 * response after `reply.hijack()`: Fastify (and the request deadline hook, which skips sent
 * replies) leave it alone from then on, so a stream is not cut after REQUEST_TIMEOUT_MS.
 */
@Injectable()
export class NotificationStreamService implements OnModuleDestroy {
  private readonly logger = new Logger('NotificationStream');
  private readonly openStreams = new Map<string, number>();
  /** Every open stream of this instance: one sweep checks all their sessions with a few queries. */
  private readonly live = new Set<LiveStream>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** Per user: the unread-count read in flight, and the one queued behind it (shared by all the user's streams). */
  private readonly counts = new Map<string, { running: Promise<number>; next?: Promise<number> }>();
  private readonly settings: ReturnType<typeof jwtSettings>;
  /** Replaceable (tests use a small bound and their own clock). */
  writeLimits: StreamWriteLimits = STREAM_WRITE_LIMITS;

  constructor(
    private readonly hub: NotificationHub,
    private readonly notifications: NotificationsRepository,
    private readonly users: UsersService,
    private readonly jwt: JwtService,
    @Inject(jwtConfig.KEY) tokenConfig: ConfigType<typeof jwtConfig>,
    @Inject(notificationsConfig.KEY) private readonly config: ConfigType<typeof notificationsConfig>,
  ) {
    this.settings = jwtSettings(tokenConfig);
  }

  /** The claims of an already verified bearer token (the guard checked it). */
  tokenOf(authorization: string | undefined): { version: number; expiresAt: Date } {
    const claims = this.jwt.decode<TokenClaims>(bearer(authorization) ?? '');
    return { version: claims.ver, expiresAt: new Date((claims.exp ?? 0) * 1000) };
  }

  /** A ticket (single use) or the Authorization header; 401 otherwise. */
  async authenticate(authorization: string | undefined, ticket: string | undefined): Promise<StreamSession> {
    const now = new Date();
    if (ticket !== undefined) {
      const stored = await this.notifications.consumeTicket(ticketId(ticket), now);
      if (!stored) throw new ApiError('unauthorized', 'The ticket is unknown, used or expired; ask for a new one.');
      const session = {
        userId: stored.userId,
        tokenVersion: stored.tokenVersion,
        tokenExpiresAt: stored.tokenExpiresAt,
      };
      if (!(await this.valid(session))) throw new ApiError('unauthorized', 'The session of this ticket has ended.');
      return session;
    }
    const token = bearer(authorization);
    if (!token) {
      throw new ApiError(
        'unauthorized',
        'Send Authorization: Bearer <token>, or ?ticket= from POST /api/notifications/stream-tickets.',
      );
    }
    let claims: TokenClaims;
    try {
      claims = await this.jwt.verifyAsync<TokenClaims>(token, {
        publicKey: this.settings.verificationKey as unknown as Buffer,
        secret: this.settings.verificationKey as unknown as Buffer,
        algorithms: this.settings.algorithms,
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
    } catch {
      throw new ApiError('unauthorized', 'The token is expired, malformed or not issued by this service.');
    }
    if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.ver !== 'number') {
      throw new ApiError('unauthorized', 'The token is missing required claims; log in again.');
    }
    const session = { userId: claims.sub, tokenVersion: claims.ver, tokenExpiresAt: new Date(claims.exp * 1000) };
    if (!(await this.valid(session))) throw new ApiError('unauthorized', 'The token has been revoked; log in again.');
    return session;
  }

  /** How many streams of the user are open on this instance. */
  openStreamsOf(userId: string): number {
    return this.openStreams.get(userId) ?? 0;
  }

  /** Opens the stream (429 past SSE_MAX_STREAMS_PER_USER on this instance). */
  async open(session: StreamSession, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { userId } = session;
    const open = this.openStreams.get(userId) ?? 0;
    if (open >= this.config.sseMaxStreamsPerUser) {
      throw new ApiError(
        'too_many_requests',
        `At most ${this.config.sseMaxStreamsPerUser} notification streams may be open per user; close one first.`,
        { 'retry-after': '5' },
      );
    }
    this.openStreams.set(userId, open + 1);

    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      // What the app's hooks set so far (security headers, request id): a hijacked reply sends only these.
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write(': stream open\n\n');

    let closed = false;
    // Writes happen in order: each unread-count is read after the notification before it.
    let queue = Promise.resolve();
    const enqueue = (work: () => Promise<void> | void) => {
      queue = queue.then(work).catch(() => close());
    };
    const limits = this.writeLimits;
    let stalledSince: number | undefined;
    const write = (text: string) => {
      if (closed) return;
      response.write(text);
      if (response.writableLength <= limits.maxBufferedBytes) {
        stalledSince = undefined;
        return;
      }
      stalledSince ??= limits.now();
      if (limits.now() - stalledSince >= limits.maxStalledMs) {
        this.logger.warn(`closed a stream of ${userId}: ${response.writableLength} bytes unsent`);
        // end() would wait behind the unsent bytes; the client reconnects with Last-Event-ID.
        closed = true;
        response.destroy();
      }
    };
    const sendNotification = (notification: NotificationDto) =>
      write(`id: ${notification.id}\nevent: notification\ndata: ${JSON.stringify(notification)}\n\n`);
    const sendCount = async () => {
      const unread = await this.unreadOf(userId);
      write(`event: unread-count\ndata: ${JSON.stringify({ unread })}\n\n`);
    };
    // A count already queued and not yet started answers for every change before it: no second one.
    let countQueued = false;
    const queueCount = () => {
      if (countQueued) return;
      countQueued = true;
      enqueue(() => {
        countQueued = false;
        return sendCount();
      });
    };

    const sent = new Set<string>();
    let replaying = true;
    const buffered: HubMessage[] = [];
    const handle = (message: HubMessage) => {
      if (message.kind === 'notification') {
        if (sent.has(message.notification.id)) return;
        sent.add(message.notification.id);
        enqueue(() => sendNotification(message.notification));
        // The count must follow this notification, so a count queued before it does not do.
        countQueued = false;
      }
      queueCount();
    };
    const unsubscribe = this.hub.subscribe(userId, (message) => (replaying ? buffered.push(message) : handle(message)));

    const heartbeat = setInterval(() => write(': heartbeat\n\n'), this.config.sseHeartbeatSeconds * 1000);
    const stream: LiveStream = { session, close: () => close() };
    this.live.add(stream);
    this.startSweep();
    const untilExpiry = Math.min(session.tokenExpiresAt.getTime() - Date.now(), 2 ** 31 - 1);
    const expiry = setTimeout(() => close(), Math.max(0, untilExpiry));

    function close(): void {
      if (closed) return;
      closed = true;
      response.end();
    }
    response.once('close', () => {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(expiry);
      this.live.delete(stream);
      if (this.live.size === 0) this.stopSweep();
      unsubscribe();
      const left = (this.openStreams.get(userId) ?? 1) - 1;
      if (left > 0) this.openStreams.set(userId, left);
      else this.openStreams.delete(userId);
    });

    const lastEventId = request.headers['last-event-id'];
    enqueue(async () => {
      if (typeof lastEventId === 'string' && UUID.test(lastEventId)) {
        for (const notification of await this.notifications.newerThan(
          userId,
          lastEventId.toLowerCase(),
          REPLAY_LIMIT,
        )) {
          sent.add(notification.id);
          sendNotification(NotificationDto.from(notification));
        }
      }
      await sendCount();
      replaying = false;
      for (const message of buffered.splice(0)) handle(message);
    });
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  /**
   * The user's unread count, one query for all their streams on this instance. A caller gets a
   * read that starts after its call: the one in flight if none is (then it starts now), else the
   * single read queued behind the running one, which every caller during that read shares. So a
   * burst of changes costs at most two reads per user, whatever the number of streams.
   */
  private unreadOf(userId: string): Promise<number> {
    const entry = this.counts.get(userId);
    if (!entry) return this.startCount(userId);
    entry.next ??= entry.running.then(
      () => this.startCount(userId),
      () => this.startCount(userId),
    );
    return entry.next;
  }

  private startCount(userId: string): Promise<number> {
    const running = this.notifications.unreadCount(userId).then(({ unread }) => unread);
    const entry = { running };
    this.counts.set(userId, entry);
    const done = () => {
      if (this.counts.get(userId) === entry) this.counts.delete(userId);
    };
    running.then(done, done);
    return running;
  }

  /**
   * Every min(SSE_HEARTBEAT_SECONDS, 10) seconds while streams are open: one query per 500 users
   * instead of one per stream (10,000 streams would otherwise cost 1,000 queries/s), then the
   * streams whose user was deactivated, logged out (token version) or whose token expired end.
   */
  private startSweep(): void {
    if (this.sweepTimer) return;
    const checkSeconds = Math.min(this.config.sseHeartbeatSeconds, MAX_SESSION_CHECK_SECONDS);
    this.sweepTimer = setInterval(() => void this.sweep(), checkSeconds * 1000);
    this.sweepTimer.unref();
  }

  private stopSweep(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const streams = [...this.live];
      const states = await this.notifications.sessionStates([...new Set(streams.map((s) => s.session.userId))]);
      const now = Date.now();
      for (const stream of streams) {
        const { session } = stream;
        const state = states.get(session.userId);
        const valid =
          state?.isActive && state.tokenVersion === session.tokenVersion && session.tokenExpiresAt.getTime() > now;
        if (!valid) stream.close();
      }
    } catch (error) {
      // Streams stay open and are checked again at the next sweep: a database hiccup must not drop every client.
      this.logger.warn(`session sweep failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  /** Whether the user is still active with the same token version, and the token has not expired. */
  private async valid(session: StreamSession): Promise<boolean> {
    if (session.tokenExpiresAt.getTime() <= Date.now()) return false;
    return isLiveSession(session, await this.users.findAuthContext(session.userId));
  }
}

function bearer(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return match?.[1];
}
