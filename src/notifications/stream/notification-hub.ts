import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Redis } from 'ioredis';
import { redisConfig } from '../../config/configuration.js';
import type { NotificationDto } from '../dto/notification-list-response.dto.js';

/** What open streams of one user must hear: a new notification, or that the unread count changed. */
export type HubMessage =
  { kind: 'notification'; userId: string; notification: NotificationDto } | { kind: 'count'; userId: string };

type Listener = (message: HubMessage) => void;

/**
 * Fan-out of notification changes to the streams open on every instance. With REDIS_URL a
 * message is published on one Redis channel and every instance (this one included) delivers it
 * to its local streams on receipt; without it, delivery is in process. Publishing never throws:
 * a lost live message is repaired by the client's Last-Event-ID replay on reconnect.
 */
@Injectable()
export class NotificationHub implements OnModuleDestroy {
  private readonly logger = new Logger('NotificationHub');
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly publisher: Redis | undefined;
  private readonly subscriber: Redis | undefined;
  private readonly channel: string;
  /** Resolves once the Redis subscription is active (immediately without Redis). */
  readonly ready: Promise<void>;

  constructor(@Inject(redisConfig.KEY) redis: ConfigType<typeof redisConfig>) {
    this.channel = `${redis.keyPrefix}notifications`;
    if (!redis.url) {
      this.ready = Promise.resolve();
      return;
    }
    const options = { maxRetriesPerRequest: 2, connectTimeout: 2000 };
    this.publisher = new Redis(redis.url, options);
    this.subscriber = new Redis(redis.url, options);
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => this.logger.warn(`Redis: ${error.message}`));
    }
    this.subscriber.on('message', (_channel: string, raw: string) => {
      try {
        this.deliver(JSON.parse(raw) as HubMessage);
      } catch {
        this.logger.warn('Ignored a malformed notification message from Redis');
      }
    });
    this.ready = this.subscriber.subscribe(this.channel).then(
      () => undefined,
      (error: Error) => this.logger.warn(`Redis subscribe failed: ${error.message}`),
    );
  }

  publish(message: HubMessage): void {
    if (!this.publisher) {
      this.deliver(message);
      return;
    }
    this.publisher.publish(this.channel, JSON.stringify(message)).catch((error: Error) => {
      this.logger.warn(`Redis publish failed: ${error.message}`);
    });
  }

  /** Answers a function that removes the listener. */
  subscribe(userId: string, listener: Listener): () => void {
    let set = this.listeners.get(userId);
    if (!set) {
      set = new Set();
      this.listeners.set(userId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(userId) === set) this.listeners.delete(userId);
    };
  }

  private deliver(message: HubMessage): void {
    for (const listener of this.listeners.get(message.userId) ?? []) listener(message);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.publisher?.quit().catch(() => undefined), this.subscriber?.quit().catch(() => undefined)]);
  }
}
