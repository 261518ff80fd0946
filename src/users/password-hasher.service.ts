import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { hash, verify } from '@node-rs/argon2';
import pLimit, { type LimitFunction } from 'p-limit';
import { passwordHashConfig } from '../config/configuration.js';
import { lowerThreadPoolPriority } from './thread-pool-priority.js';

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. @node-rs/argon2 defaults to argon2id. */
export const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashing runs off the event loop on libuv's pool; the limiter bounds how many run at once
 * (memory, and pool threads left for other work) so a login flood queues here, and the pool's
 * threads run at a lower priority so the event loop keeps answering other requests meanwhile.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private readonly logger = new Logger(PasswordHasher.name);
  private readonly limit: LimitFunction;
  /** Verified against when a username is unknown, so that path costs as much as a wrong password. */
  private readonly dummyHash: Promise<string>;

  constructor(@Inject(passwordHashConfig.KEY) private readonly config: ConfigType<typeof passwordHashConfig>) {
    this.limit = pLimit(config.concurrency);
    this.dummyHash = hash('dummy-password-for-timing-equalisation', ARGON2_OPTIONS);
  }

  async onModuleInit(): Promise<void> {
    const niceness = this.config.niceness;
    const lowered = await lowerThreadPoolPriority(niceness);
    if (niceness > 0 && lowered === 0) {
      this.logger.warn("Could not lower the hashing threads' priority; a login flood may delay other requests");
    }
  }

  hash(password: string): Promise<string> {
    return this.limit(() => hash(password, ARGON2_OPTIONS));
  }

  async verify(passwordHash: string | undefined, password: string): Promise<boolean> {
    const target = passwordHash ?? (await this.dummyHash);
    const matches = await this.limit(() => verify(target, password).catch(() => false));
    return passwordHash !== undefined && matches;
  }
}
