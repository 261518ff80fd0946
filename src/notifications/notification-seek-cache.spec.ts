import { describe, expect, it } from 'vitest';
import { NotificationSeekCache, SEEK_MIN_OFFSET } from './notification-seek-cache.js';

const at = (offset: number) => ({ offset, createdAt: new Date(1_700_000_000_000 - offset * 1000), id: `id-${offset}` });
const cache = (entries = 100) => new NotificationSeekCache({ notificationSeekCacheEntries: entries });

describe('NotificationSeekCache', () => {
  it('returns the closest remembered position at or above the offset, for the same revision only', () => {
    const seeks = cache();
    seeks.remember('u|||0', '7', [at(2_000), at(1_200), at(3_000)]);
    expect(seeks.nearest('u|||0', '7', 2_500)).toEqual(at(2_000));
    expect(seeks.nearest('u|||0', '7', 2_000)).toEqual(at(2_000));
    expect(seeks.nearest('u|||0', '7', 1_999)).toEqual(at(1_200));
    expect(seeks.nearest('u|||0', '7', 1_100)).toBeUndefined();
    expect(seeks.nearest('u|||0', '8', 2_500)).toBeUndefined();
    expect(seeks.nearest('u|pending||0', '7', 2_500)).toBeUndefined();
  });

  it('forgets positions of an older revision, and never lets an older revision replace newer positions', () => {
    const seeks = cache();
    seeks.remember('u|||0', '7', [at(2_000)]);
    seeks.remember('u|||0', '9', [at(3_000)]);
    expect(seeks.nearest('u|||0', '9', 2_500)).toBeUndefined();
    expect(seeks.nearest('u|||0', '9', 3_000)).toEqual(at(3_000));
    seeks.remember('u|||0', '8', [at(2_000)]);
    expect(seeks.nearest('u|||0', '8', 2_000)).toBeUndefined();
    expect(seeks.nearest('u|||0', '9', 3_000)).toEqual(at(3_000));
  });

  it('keeps no position above SEEK_MIN_OFFSET, where OFFSET is cheap', () => {
    const seeks = cache();
    seeks.remember('u|||0', '1', [at(SEEK_MIN_OFFSET - 1)]);
    expect(seeks.nearest('u|||0', '1', SEEK_MIN_OFFSET + 500)).toBeUndefined();
  });

  it('bounds positions per list and lists in all', () => {
    const seeks = cache(2);
    for (let offset = 1_000; offset < 1_000 + 40 * 100; offset += 100) seeks.remember('a', '1', [at(offset)]);
    // The first positions were dropped: nothing at or above 1,700 is left.
    expect(seeks.nearest('a', '1', 1_700)).toBeUndefined();
    expect(seeks.nearest('a', '1', 1_800)).toEqual(at(1_800));
    seeks.remember('b', '1', [at(1_000)]);
    seeks.remember('c', '1', [at(1_000)]);
    expect(seeks.nearest('a', '1', 5_000)).toBeUndefined();
    expect(seeks.nearest('c', '1', 1_000)).toEqual(at(1_000));
  });

  it('is off with 0 entries', () => {
    const seeks = cache(0);
    expect(seeks.enabled).toBe(false);
    seeks.remember('a', '1', [at(2_000)]);
    expect(seeks.nearest('a', '1', 2_000)).toBeUndefined();
  });
});
