import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationHub } from '../../src/notifications/stream/notification-hub.js';
import { NotificationStreamService } from '../../src/notifications/stream/notification-stream.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { openSse, waitFor, type SseClient } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('a notification stream that is not read, on %s', (kind) => {
  let t: TestApp;
  const responses: IncomingMessage[] = [];
  const clients: SseClient[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind);
  });

  afterAll(async () => {
    for (const response of responses) response.destroy();
    for (const client of clients) client.close();
    await t?.close();
  });

  /** Opens a stream and stops reading once its first unread-count arrived (the stream is live). */
  function openPaused(token: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const call = request(`${t.url}/api/notifications/stream`, { headers: { authorization: `Bearer ${token}` } });
      call.on('error', reject);
      call.on('response', (response) => {
        responses.push(response);
        let text = '';
        const onData = (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (!text.includes('event: unread-count')) return;
          response.off('data', onData);
          response.pause();
          resolve(response);
        };
        response.on('data', onData);
      });
      call.end();
    });
  }

  it('is closed once its unsent output stays above the bound; the client resumes with Last-Event-ID', async () => {
    const token = await t.login('alice');
    const alice = t.user('alice').id;
    const streams = t.app.get(NotificationStreamService);
    const hub = t.app.get(NotificationHub);
    // The test's clock moves 100 ms each time the stream reads it (on every write), so the stall is
    // measured in writes however far the write queue lags behind the publishing loop.
    let now = 0;
    streams.writeLimits = { maxBufferedBytes: 64 * 1024, maxStalledMs: 1_000, now: () => (now += 100) };

    const paused = await openPaused(token);
    expect(paused.statusCode).toBe(200);
    expect(streams.openStreamsOf(alice)).toBe(1);
    const ended = new Promise<void>((resolve) => paused.once('close', () => resolve()));

    // Large messages until the kernel's buffers are full and the server's own buffer stays above the
    // bound for maxStalledMs on the test's clock: then the stream is closed.
    const large = 'x'.repeat(64 * 1024);
    for (let sent = 0; sent < 5_000 && streams.openStreamsOf(alice) > 0; sent++) {
      hub.publish({
        kind: 'notification',
        userId: alice,
        notification: {
          id: randomUUID(),
          userId: alice,
          subject: 'large',
          message: large,
          notificationType: 'in_app',
          status: 'sent',
          readAt: null,
          createdAt: new Date().toISOString(),
          event: null,
          documentId: null,
        },
      });
      await nextTurn();
    }
    await waitFor(async () => streams.openStreamsOf(alice) === 0, 'the stalled stream to close');
    // What the kernel held still arrives, then the end.
    paused.resume();
    await ended;

    // The client reconnects with the last id it saw and gets what is newer.
    const list = await fetch(`${t.url}/api/notifications?limit=3`, { headers: { authorization: `Bearer ${token}` } });
    const newestFirst = ((await list.json()) as { notifications: { id: string }[] }).notifications;
    const resumed = await openSse(`${t.url}/api/notifications/stream`, {
      authorization: `Bearer ${token}`,
      'last-event-id': newestFirst[2].id,
    });
    clients.push(resumed);
    expect(resumed.status).toBe(200);
    await waitFor(async () => resumed.events.some((event) => event.event === 'unread-count'), 'the replay');
    expect(resumed.events.filter((event) => event.event === 'notification').map((event) => event.id)).toEqual([
      newestFirst[1].id,
      newestFirst[0].id,
    ]);
  });
});
