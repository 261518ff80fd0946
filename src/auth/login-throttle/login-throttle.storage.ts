import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';

/** What a storage answers per hit; derived from the public interface (the type itself is not exported). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler storage that can also forget a key (a successful login clears its username's count). */
export interface ResettableThrottlerStorage extends ThrottlerStorage {
  reset(key: string): Promise<void>;
}

export const LOGIN_THROTTLE_STORAGE = Symbol('LOGIN_THROTTLE_STORAGE');

interface WindowRecord {
  hits: number;
  expiresAt: number;
  blockedUntil: number;
}

/**
 * One process: a fixed window per key with a block once the limit is passed, the same
 * semantics as the Redis storage below. (@nestjs/throttler's own storage cannot forget a key.)
 */
export class MemoryThrottlerStorage implements ResettableThrottlerStorage, OnApplicationShutdown {
  private readonly records = new Map<string, WindowRecord>();
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let record = this.records.get(key);
    if (!record || record.expiresAt <= now) {
      record = { hits: 0, expiresAt: now + ttl, blockedUntil: record?.blockedUntil ?? 0 };
      this.records.set(key, record);
    }
    record.hits += 1;
    if (record.blockedUntil <= now && record.hits > limit && blockDuration > 0) {
      record.blockedUntil = now + blockDuration;
    }
    return {
      totalHits: record.hits,
      timeToExpire: Math.ceil((record.expiresAt - now) / 1000),
      isBlocked: record.blockedUntil > now,
      timeToBlockExpire: Math.max(0, Math.ceil((record.blockedUntil - now) / 1000)),
    };
  }

  async reset(key: string): Promise<void> {
    this.records.delete(key);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private sweep(now = Date.now()): void {
    for (const [key, record] of this.records) {
      if (record.expiresAt <= now && record.blockedUntil <= now) this.records.delete(key);
    }
  }
}

// Fixed window with a block after the limit, the same semantics as the in-memory storage,
// done atomically in Redis so several instances share one count.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
if blocked <= 0 and hits > tonumber(ARGV[2]) and tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blocked = tonumber(ARGV[3])
end
return {hits, ttl, blocked}
`;

/**
 * Redis storage for @nestjs/throttler. Written here because the community Redis storage
 * (@nest-lab/throttler-storage-redis) does not declare support for Nest 12 yet.
 */
export class RedisThrottlerStorage implements ResettableThrottlerStorage, OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(url: string, keyPrefix: string) {
    this.redis = new Redis(url, { keyPrefix, maxRetriesPerRequest: 2, connectTimeout: 2000 });
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const [hits, ttlMs, blockedMs] = (await this.redis.eval(
      INCREMENT,
      2,
      key,
      `${key}:blocked`,
      String(ttl),
      String(limit),
      String(blockDuration),
    )) as [number, number, number];
    return {
      totalHits: hits,
      timeToExpire: Math.ceil(Math.max(ttlMs, 0) / 1000),
      isBlocked: blockedMs > 0,
      timeToBlockExpire: Math.ceil(Math.max(blockedMs, 0) / 1000),
    };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key, `${key}:blocked`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
