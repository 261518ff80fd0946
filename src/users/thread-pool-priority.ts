import { readlink } from 'node:fs/promises';
import { setPriority } from 'node:os';

/** libuv's default pool size when UV_THREADPOOL_SIZE is not set. */
const DEFAULT_POOL_SIZE = 4;

/**
 * Finds the thread ids of libuv's worker pool on Linux: an asynchronous readlink of
 * /proc/thread-self runs on a pool thread and so names that thread. Enough concurrent calls
 * reach every thread of the pool (all of them start together on first use).
 */
export async function threadPoolThreadIds(
  poolSize = Number(process.env.UV_THREADPOOL_SIZE) || DEFAULT_POOL_SIZE,
): Promise<number[]> {
  const ids = new Set<number>();
  for (let round = 0; round < 50 && ids.size < poolSize; round++) {
    const links = await Promise.all(
      Array.from({ length: poolSize * 8 }, () => readlink('/proc/thread-self').catch(() => undefined)),
    );
    if (links.every((link) => link === undefined)) return []; // not Linux
    for (const link of links) {
      const id = Number(link?.split('/').at(-1));
      if (Number.isInteger(id) && id !== process.pid) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * Raises the nice value of libuv's pool threads, where argon2 runs: under CPU contention the
 * event loop (nice 0) then always runs first, so a login flood uses every idle cycle for
 * hashing without delaying other requests. Linux schedules threads individually; elsewhere
 * this finds no threads and changes nothing. Returns how many threads were lowered.
 */
export async function lowerThreadPoolPriority(niceness: number): Promise<number> {
  if (niceness <= 0) return 0;
  const ids = await threadPoolThreadIds();
  let lowered = 0;
  for (const id of ids) {
    try {
      setPriority(id, niceness);
      lowered++;
    } catch {
      // Not permitted (or the thread is gone): hashing still works, only at normal priority.
    }
  }
  return lowered;
}
