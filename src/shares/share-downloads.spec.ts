import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Transactions, Tx } from '../database/transactions.js';
import type { OutboxRepository } from '../events/outbox.repository.js';
import type { ShareLink } from './entities/share-link.entity.js';
import { MAX_BATCH, RECORD_WINDOW_MS, ShareDownloads, type ShareDownload } from './share-downloads.js';
import type { SharesRepository } from './shares.repository.js';

const NOW = new Date('2026-11-28T08:00:00.000Z');

function link(id: string, maxDownloads: number | null, downloads = 0): ShareLink {
  return { id, maxDownloads, downloads, revokedAt: null, expiresAt: new Date(NOW.getTime() + 3_600_000) } as ShareLink;
}

describe('ShareDownloads batching', () => {
  let links: Map<string, ShareLink>;
  /** The size of each committed batch, in order. */
  let batches: number[];
  /** Resolves the commit under way, when held. */
  let release: (() => void) | undefined;
  let hold: boolean;
  let downloads: ShareDownloads;

  const download = (shareLink: ShareLink): ShareDownload => ({
    linkId: shareLink.id,
    sharerId: 'u',
    document: { id: 'd', projectId: 'p', title: 't' },
    audit: { actorId: null, ip: null, requestId: null },
    at: NOW,
  });

  beforeEach(() => {
    vi.useFakeTimers();
    links = new Map([
      ['open', link('open', null)],
      ['limited', link('limited', 2)],
    ]);
    batches = [];
    hold = false;
    const shares = {
      lockForCount: async (_tx: Tx, ids: string[]) =>
        new Map(ids.map((id) => [id, Object.assign({}, links.get(id))] as [string, ShareLink])),
      addDownloads: async (_tx: Tx, id: string, count: number) => void (links.get(id)!.downloads += count),
    } as unknown as SharesRepository;
    const transactions = {
      run: async <T>(work: (tx: Tx) => Promise<T>) => {
        const result = await work({} as Tx);
        if (hold) await new Promise<void>((resolve) => (release = resolve));
        return result;
      },
    } as unknown as Transactions;
    const audit = { record: async () => undefined } as unknown as AuditTrail;
    const outbox = {
      appendAll: async (_tx: Tx, events: { payload: { downloads: number } }[]) =>
        void batches.push(events.reduce((sum, event) => sum + event.payload.downloads, 0)),
    } as unknown as OutboxRepository;
    downloads = new ShareDownloads(shares, transactions, audit, outbox);
  });

  afterEach(() => vi.useRealTimers());

  it('records downloads of a link without a limit together, RECORD_WINDOW_MS after the first', async () => {
    for (let index = 0; index < 3; index++) downloads.record(download(links.get('open')!));
    await vi.advanceTimersByTimeAsync(RECORD_WINDOW_MS - 1);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([3]);
    expect(links.get('open')!.downloads).toBe(3);
  });

  it('counts a limited link at the next turn, against its limit, taking the recorded ones along', async () => {
    downloads.record(download(links.get('open')!));
    const answers = [1, 2, 3].map(() => downloads.count(download(links.get('limited')!)));
    await vi.advanceTimersByTimeAsync(0);
    expect(await Promise.all(answers)).toEqual([true, true, false]);
    expect(batches).toEqual([3]);
  });

  it('lets downloads that arrive during a commit wait for the window, unless a batch is full', async () => {
    hold = true;
    downloads.record(download(links.get('open')!));
    await vi.advanceTimersByTimeAsync(RECORD_WINDOW_MS);
    downloads.record(download(links.get('open')!));
    release!();
    hold = false;
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([1]);
    await vi.advanceTimersByTimeAsync(RECORD_WINDOW_MS);
    expect(batches).toEqual([1, 1]);

    for (let index = 0; index < MAX_BATCH; index++) downloads.record(download(links.get('open')!));
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([1, 1, MAX_BATCH]);
  });

  it('settles every download handed over, also one waiting for the window', async () => {
    downloads.record(download(links.get('open')!));
    await downloads.settled();
    expect(batches).toEqual([1]);
  });
});
