import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryThrottlerStorage,
  RedisThrottlerStorage,
  type ResettableThrottlerStorage,
} from '../../src/auth/login-throttle/login-throttle.storage.js';
import { UsernameThrottle } from '../../src/auth/login-throttle/username-throttle.service.js';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../support/test-app.js';

const login = (t: TestApp, username: string, password: string) =>
  request(t.url).post('/api/auth/login').send({ username, password });

// Throttling does not depend on the database; SQLite keeps this suite fast.
describe('login throttling (in memory)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { LOGIN_RATE_LIMIT_PER_USERNAME: '3', LOGIN_RATE_LIMIT_PER_IP: '1000' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('blocks a username after too many attempts, even with the right password, with Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await login(t, 'bob', 'wrong')).status).toBe(401);
    const blocked = await login(t, 'bob', TEST_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({
      error: 'too_many_requests',
      details: expect.stringMatching(/retry after \d+ seconds/),
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Counted by the account identity key (case and compatibility forms folded), and other usernames are unaffected.
    expect((await login(t, 'BOB', TEST_PASSWORD)).status).toBe(429);
    expect((await login(t, ' \uFF42\uFF4F\uFF42 ', TEST_PASSWORD)).status).toBe(429); // fullwidth "ｂｏｂ"
    expect((await login(t, 'erin', TEST_PASSWORD)).status).toBe(200);
  });

  it("resets a username's count after a successful login", async () => {
    expect((await login(t, 'alice', 'wrong')).status).toBe(401);
    expect((await login(t, 'alice', 'wrong')).status).toBe(401);
    expect((await login(t, 'alice', TEST_PASSWORD)).status).toBe(200);
    expect((await login(t, 'alice', 'wrong')).status).toBe(401);
    expect((await login(t, 'alice', 'wrong')).status).toBe(401);
    expect((await login(t, 'alice', TEST_PASSWORD)).status).toBe(200);
  });

  it('shares the per-username count with other password checks through UsernameThrottle', async () => {
    const throttle = t.app.get(UsernameThrottle);
    // Another password check (the admin API's) fails twice for admin, then login fails once: blocked.
    await throttle.consume('admin');
    await throttle.consume('Admin');
    expect((await login(t, 'admin', 'wrong')).status).toBe(401);
    await expect(throttle.consume('admin')).rejects.toMatchObject({ code: 'too_many_requests' });
    expect((await login(t, 'admin', TEST_PASSWORD)).status).toBe(429);
    await throttle.reset('ADMIN');
    expect((await login(t, 'admin', TEST_PASSWORD)).status).toBe(200);
  });
});

describe('login throttling per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { LOGIN_RATE_LIMIT_PER_IP: '4', LOGIN_RATE_LIMIT_PER_USERNAME: '1000' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('limits attempts from one address whatever the usernames', async () => {
    for (let i = 0; i < 4; i++) expect((await login(t, `someone-${i}`, 'x')).status).toBe(401);
    const blocked = await login(t, 'admin', TEST_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('too_many_requests');
    // Only login is throttled.
    expect((await request(t.url).get('/health/live')).status).toBe(200);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.CI === 'true') {
  throw new Error('CI=true but TEST_REDIS_URL is not set: the shared-throttling suite must not be skipped.');
}

/** The semantics both storages must have: a fixed window, a block once past the limit, and reset. */
function storageContract(open: () => ResettableThrottlerStorage & { onApplicationShutdown(): unknown }) {
  let storage: ReturnType<typeof open>;
  const key = `contract:${randomBytes(4).toString('hex')}`;
  beforeAll(() => {
    storage = open();
  });
  afterAll(async () => {
    await storage?.onApplicationShutdown();
  });

  it('counts hits in a window, blocks past the limit for blockDuration, and forgets a key on reset', async () => {
    const hit = () => storage.increment(key, 60_000, 2, 30_000, 'contract');
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await hit()).toMatchObject({ totalHits: 2, isBlocked: false });
    const third = await hit();
    expect(third).toMatchObject({ totalHits: 3, isBlocked: true });
    expect(third.timeToExpire).toBeGreaterThan(0);
    expect(third.timeToExpire).toBeLessThanOrEqual(60);
    expect(third.timeToBlockExpire).toBeGreaterThan(0);
    expect(third.timeToBlockExpire).toBeLessThanOrEqual(30);
    expect((await hit()).isBlocked).toBe(true);
    await storage.reset(key);
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
    // Another key has its own count.
    expect(await storage.increment(`${key}:other`, 60_000, 2, 30_000, 'contract')).toMatchObject({ totalHits: 1 });
  });
}

describe('the in-memory throttle storage', () => {
  storageContract(() => new MemoryThrottlerStorage());
});

// Under CI=true a missing TEST_REDIS_URL throws above, and an unreachable Redis fails these tests.
describe.runIf(redisUrl)('the Redis throttle storage', () => {
  storageContract(() => new RedisThrottlerStorage(redisUrl!, `dms-test-${randomBytes(4).toString('hex')}:`));
});

describe.runIf(redisUrl)('login throttling shared through Redis', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    const env = {
      REDIS_URL: redisUrl!,
      REDIS_KEY_PREFIX: `dms-test-${randomBytes(4).toString('hex')}:`,
      LOGIN_RATE_LIMIT_PER_USERNAME: '3',
      LOGIN_RATE_LIMIT_PER_IP: '1000',
    };
    first = await createTestApp('sqlite', env);
    second = await createTestApp('sqlite', env);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('counts attempts across instances and resets them from either', async () => {
    expect((await login(first, 'bob', 'wrong')).status).toBe(401);
    expect((await login(second, 'bob', 'wrong')).status).toBe(401);
    expect((await login(first, 'bob', 'wrong')).status).toBe(401);
    expect((await login(second, 'bob', 'wrong')).status).toBe(429);
    expect((await login(first, 'bob', TEST_PASSWORD)).status).toBe(429);

    expect((await login(first, 'alice', 'wrong')).status).toBe(401);
    expect((await login(second, 'alice', 'wrong')).status).toBe(401);
    expect((await login(second, 'alice', TEST_PASSWORD)).status).toBe(200);
    expect((await login(first, 'alice', 'wrong')).status).toBe(401);
    expect((await login(first, 'alice', 'wrong')).status).toBe(401);
  });
});
