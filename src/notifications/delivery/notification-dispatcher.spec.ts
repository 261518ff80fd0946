import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConfigType } from '@nestjs/config';
import { SystemClock } from '../../common/time/clock.js';
import type { notificationsConfig } from '../../config/configuration.js';
import type { Transactions } from '../../database/transactions.js';
import type { DocumentParticipants } from '../../documents/document-participants.service.js';
import { OUTBOX_NUDGE_DELAY_MS, signalOutboxWrite } from '../../events/outbox-signal.js';
import type { ProjectMembership } from '../../projects/project-membership.service.js';
import type { WatchesRepository } from '../../watches/watches.repository.js';
import type { NotificationHub } from '../stream/notification-hub.js';
import type { DeliveryRepository } from './delivery.repository.js';
import { DISPATCH_POLL_MS, NotificationDispatcher } from './notification-dispatcher.js';

describe('NotificationDispatcher polling', () => {
  let dispatcher: NotificationDispatcher;
  let polls: number[];

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    polls = [];
    const delivery = {
      pendingEvents: vi.fn(async () => {
        polls.push(Math.round(performance.now()));
        return [];
      }),
    } as unknown as DeliveryRepository;
    dispatcher = new NotificationDispatcher(
      delivery,
      {} as Transactions,
      {} as ProjectMembership,
      {} as DocumentParticipants,
      {} as WatchesRepository,
      {} as NotificationHub,
      new SystemClock(),
      { dailyDigestHour: 8 } as ConfigType<typeof notificationsConfig>,
      [],
    );
    dispatcher.onApplicationBootstrap();
  });

  afterEach(async () => {
    await dispatcher.onModuleDestroy();
    vi.useRealTimers();
  });

  it('polls every DISPATCH_POLL_MS when nothing nudges it', async () => {
    await vi.advanceTimersByTimeAsync(DISPATCH_POLL_MS * 2 + 1);
    expect(polls).toEqual([0, DISPATCH_POLL_MS, DISPATCH_POLL_MS * 2]);
  });

  it('runs OUTBOX_NUDGE_DELAY_MS after a commit signal, taking signals close together in one run', async () => {
    await vi.advanceTimersByTimeAsync(100);
    signalOutboxWrite();
    signalOutboxWrite();
    await vi.advanceTimersByTimeAsync(OUTBOX_NUDGE_DELAY_MS);
    expect(polls).toEqual([0, 100 + OUTBOX_NUDGE_DELAY_MS]);
    // No follow-up runs: the next is the regular poll.
    await vi.advanceTimersByTimeAsync(DISPATCH_POLL_MS);
    expect(polls).toEqual([0, 100 + OUTBOX_NUDGE_DELAY_MS, 100 + OUTBOX_NUDGE_DELAY_MS + DISPATCH_POLL_MS]);
  });
});
