import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { NotificationCursor } from './notification-cursor.js';

/** The row at 0-based `offset` of one user's filtered, newest-first list has this key. */
export interface SeekAnchor extends NotificationCursor {
  offset: number;
}

interface AnchorSet {
  /** SUM(notification_counts.revision) of the user when the positions were read. */
  revision: string;
  anchors: SeekAnchor[];
}

/** Pages closer to the top than this are cheap with OFFSET; positions are kept only below it. */
export const SEEK_MIN_OFFSET = 1_000;
/** Positions kept per list; the oldest-remembered goes first. */
const ANCHORS_PER_LIST = 32;

/**
 * Remembers where deep pages start, so page N is a keyset seek from the nearest known
 * position instead of an OFFSET over every index entry above it. A position is used only while
 * the user's revision (bumped by the count triggers on every insert, update or delete of their
 * notifications) is the one it was read at, so an answer is always what OFFSET would give.
 * Per instance and in memory: another instance simply learns its own positions.
 */
@Injectable()
export class NotificationSeekCache {
  private readonly lists: LRUCache<string, AnchorSet> | undefined;

  // NOTIFICATION_SEEK_CACHE_ENTRIES is gone from the configuration (the cache is being removed); the
  // size is fixed meanwhile, and the unit test still passes its own.
  constructor(
    @Optional()
    @Inject('NotificationSeekCacheSize')
    config: { notificationSeekCacheEntries: number } = { notificationSeekCacheEntries: 10_000 },
  ) {
    const max = config.notificationSeekCacheEntries;
    this.lists = max > 0 ? new LRUCache({ max }) : undefined;
  }

  get enabled(): boolean {
    return this.lists !== undefined;
  }

  /** The known position closest above `offset` (at most `offset`) that is still exact. */
  nearest(list: string, revision: string, offset: number): SeekAnchor | undefined {
    const set = this.lists?.get(list);
    if (!set || set.revision !== revision) return undefined;
    let best: SeekAnchor | undefined;
    for (const anchor of set.anchors) {
      if (anchor.offset <= offset && (!best || anchor.offset > best.offset)) best = anchor;
    }
    return best;
  }

  remember(list: string, revision: string, anchors: SeekAnchor[]): void {
    if (!this.lists) return;
    const deep = anchors.filter((anchor) => anchor.offset >= SEEK_MIN_OFFSET);
    if (deep.length === 0) return;
    let set = this.lists.get(list);
    // A slow request that read an older revision must not replace newer positions.
    if (set && BigInt(revision) < BigInt(set.revision)) return;
    if (!set || set.revision !== revision) {
      set = { revision, anchors: [] };
      this.lists.set(list, set);
    }
    for (const anchor of deep) {
      if (set.anchors.some((known) => known.offset === anchor.offset)) continue;
      set.anchors.push(anchor);
      if (set.anchors.length > ANCHORS_PER_LIST) set.anchors.shift();
    }
  }
}
