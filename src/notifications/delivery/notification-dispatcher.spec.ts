import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConfigType } from '@nestjs/config';
import { SystemClock } from '../../common/time/clock.js';
import type { notificationsConfig } from '../../config/configuration.js';
import type { Transactions } from '../../database/transactions.js';
import type { DocumentParticipants } from '../../documents/document-participants.service.js';
import { signalOutboxWrite } from '../../events/outbox-signal.js';
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

  it('after a nudge (sent before the writer commits) looks again soon, not only at the next poll', async () => {
    await vi.advanceTimersByTimeAsync(100);
    signalOutboxWrite();
    await vi.advanceTimersByTimeAsync(100);
    // The nudged run finds nothing (the writer has not committed yet); follow-ups come well before the poll.
    const afterNudge = polls.filter((at) => at > 100 && at <= 200);
    expect(afterNudge.length).toBeGreaterThanOrEqual(3);
    // A second later, without nudges, the regular interval is back.
    await vi.advanceTimersByTimeAsync(2_000);
    const late = polls.filter((at) => at > 1_500);
    expect(late.length).toBeLessThanOrEqual(Math.ceil(600 / DISPATCH_POLL_MS) + 1);
  });
});
