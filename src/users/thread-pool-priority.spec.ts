import { existsSync, readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lowerThreadPoolPriority, threadPoolThreadIds } from './thread-pool-priority.js';

const linux = existsSync('/proc/thread-self');
const ownThreadId = () => Number(readlinkSync('/proc/thread-self').split('/').at(-1));

describe.runIf(linux)('libuv pool thread priority (Linux)', () => {
  it('finds every pool thread and none of the JavaScript threads', async () => {
    const poolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const ids = await threadPoolThreadIds();
    expect(new Set(ids).size).toBe(poolSize);
    expect(ids).not.toContain(process.pid);
    expect(ids).not.toContain(ownThreadId());
    for (const id of ids) expect(existsSync(`/proc/self/task/${id}`)).toBe(true);
  });

  it('lowers exactly the pool threads and leaves the calling thread and the main thread alone', async () => {
    const callerBefore = getPriority(ownThreadId());
    const mainBefore = getPriority(process.pid);
    const lowered = await lowerThreadPoolPriority(7);
    const ids = await threadPoolThreadIds();
    expect(lowered).toBe(ids.length);
    for (const id of ids) expect(getPriority(id)).toBe(7);
    expect(getPriority(ownThreadId())).toBe(callerBefore);
    expect(getPriority(process.pid)).toBe(mainBefore);
  });

  it('changes nothing when the niceness is 0', async () => {
    await expect(lowerThreadPoolPriority(0)).resolves.toBe(0);
  });
});
