import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { hash, verify } from '@node-rs/argon2';
import pLimit, { type LimitFunction } from 'p-limit';
import { appConfig } from '../config/app.config.js';

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. @node-rs/argon2 defaults to argon2id. */
export const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashing runs off the event loop on libuv's pool; the limiter bounds how many run at once so
 * a login flood queues here instead of starving database I/O that shares the same pool.
 */
@Injectable()
export class PasswordHasher {
  private readonly limit: LimitFunction;
  /** Verified against when a username is unknown, so that path costs as much as a wrong password. */
  private readonly dummyHash: Promise<string>;

  constructor(@Inject(appConfig.KEY) config: ConfigType<typeof appConfig>) {
    this.limit = pLimit(config.passwordHashConcurrency);
    this.dummyHash = hash('dummy-password-for-timing-equalisation', ARGON2_OPTIONS);
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
