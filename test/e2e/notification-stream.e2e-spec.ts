import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, recordEvent, waitFor, type SseClient, type SseEvent } from '../support/inbox.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const notificationsIn = (client: SseClient) =>
  client.events
    .filter((event) => event.event === 'notification')
    .map((event) => JSON.parse(event.data!) as { id: string; event: string });
const lastCount = (client: SseClient) => {
  const counts = client.events.filter((event: SseEvent) => event.event === 'unread-count');
  return counts.length ? (JSON.parse(counts.at(-1)!.data!) as { unread: number }).unread : undefined;
};

describe.each(databasesUnderTest())('GET /api/notifications/stream on %s', (kind) => {
  let t: TestApp;
  const open: SseClient[] = [];

  async function stream(query = '', headers: Record<string, string> = {}): Promise<SseClient> {
    const client = await openSse(`${t.url}/api/notifications/stream${query}`, headers);
    open.push(client);
    return client;
  }
  async function unread(token: string): Promise<number> {
    const response = await fetch(`${t.url}/api/notifications/unread-count`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await response.json()) as { unread: number }).unread;
  }

  beforeAll(async () => {
    // Short heartbeat (the session is checked as often) and a request deadline streams must outlive
    // (two heartbeats, >= 2 s). Not shorter: the suite's logins (argon2) share it, and under a full
    // parallel run 300 ms was too little for them (503).
    t = await createTestApp(kind, {
      SSE_HEARTBEAT_SECONDS: '1',
      SSE_MAX_STREAMS_PER_USER: '2',
      REQUEST_TIMEOUT_MS: '1000',
    });
  });

  afterAll(async () => {
    for (const client of open) client.close();
    await t?.close();
  });

  it('streams new notifications and the unread count to a header-authenticated client, past the request deadline', async () => {
    const token = await t.login('bob');
    const client = await stream('', { authorization: `Bearer ${token}` });
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The stream writes its own head: the app's security headers and request id must still be on it.
    expect(client.headers.get('x-content-type-options')).toBe('nosniff');
    expect(client.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(client.headers.get('x-request-id')).toMatch(/\S/);
    await waitFor(async () => lastCount(client) !== undefined, 'the first unread-count');
    expect(lastCount(client)).toBe(await unread(token));
    // Two heartbeats (>= 2 s): the stream has outlived REQUEST_TIMEOUT_MS (1 s) and is still open.
    await waitFor(async () => client.events.filter((event) => event.comment === 'heartbeat').length >= 2, 'heartbeats');
    expect(client.isEnded()).toBe(false);

    const before = lastCount(client)!;
    await recordEvent(t, {
      type: 'document.created',
      actorId: t.user('alice').id,
      projectId: t.seed.projects[0].id,
      documentId: t.seed.documents[0].id,
    });
    const [live] = await waitFor(async () => {
      const found = notificationsIn(client);
      return found.length > 0 && found;
    }, 'the live notification');
    expect(live.event).toBe('document.created');
    const event = client.events.find((candidate) => candidate.event === 'notification')!;
    expect(event.id).toBe(live.id);
    await waitFor(async () => lastCount(client) === before + 1, 'the new unread-count');

    // Marking it read changes the count: the stream says so.
    await fetch(`${t.url}/api/notifications/${live.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ read: true }),
    });
    await waitFor(async () => lastCount(client) === before, 'the count after reading');
    client.close();
  });

  it('accepts a single-use ticket instead of the header; refuses a used, unknown or missing one', async () => {
    const token = await t.login('alice');
    const issued = await fetch(`${t.url}/api/notifications/stream-tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(issued.status).toBe(201);
    const { ticket, expiresIn } = (await issued.json()) as { ticket: string; expiresIn: number };
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(60);
    const client = await stream(`?ticket=${encodeURIComponent(ticket)}`);
    expect(client.status).toBe(200);
    await waitFor(async () => lastCount(client) !== undefined, 'the first unread-count');
    expect(lastCount(client)).toBe(await unread(token));
    client.close();

    for (const query of [`?ticket=${encodeURIComponent(ticket)}`, '?ticket=not-a-ticket', '']) {
      const refused = await stream(query);
      expect({ status: refused.status, body: refused.body }).toMatchObject({
        status: 401,
        body: { error: 'unauthorized' },
      });
    }
    const forged = await stream('', { authorization: 'Bearer x.y.z' });
    expect(forged.status).toBe(401);
  });

  it('replays the caller’s notifications newer than Last-Event-ID, oldest first', async () => {
    const token = await t.login('alice');
    const response = await fetch(`${t.url}/api/notifications?limit=10`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const newestFirst = ((await response.json()) as { notifications: { id: string }[] }).notifications;
    const anchor = newestFirst[5];
    const client = await stream('', { authorization: `Bearer ${token}`, 'last-event-id': anchor.id });
    await waitFor(async () => lastCount(client) !== undefined, 'the replay');
    expect(notificationsIn(client).map((item) => item.id)).toEqual(
      newestFirst
        .slice(0, 5)
        .map((item) => item.id)
        .toReversed(),
    );
    client.close();
    // Another user's id replays nothing.
    const bob = await stream('', { authorization: `Bearer ${await t.login('bob')}`, 'last-event-id': anchor.id });
    await waitFor(async () => lastCount(bob) !== undefined, 'the first unread-count');
    expect(notificationsIn(bob)).toEqual([]);
    bob.close();
  });

  it('allows SSE_MAX_STREAMS_PER_USER streams per user, then 429', async () => {
    const token = await t.login('erin');
    const first = await stream('', { authorization: `Bearer ${token}` });
    const second = await stream('', { authorization: `Bearer ${token}` });
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await stream('', { authorization: `Bearer ${token}` });
    expect({ status: third.status, body: third.body }).toMatchObject({
      status: 429,
      body: { error: 'too_many_requests' },
    });
    first.close();
    await waitFor(async () => (await stream('', { authorization: `Bearer ${token}` })).status === 200, 'a free slot');
    second.close();
  });

  it('ends the stream after logout (header and ticket streams alike)', async () => {
    const token = await t.login('admin');
    const byHeader = await stream('', { authorization: `Bearer ${token}` });
    const issued = await fetch(`${t.url}/api/notifications/stream-tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const { ticket } = (await issued.json()) as { ticket: string };
    const byTicket = await stream(`?ticket=${ticket}`);
    await waitFor(async () => lastCount(byHeader) !== undefined && lastCount(byTicket) !== undefined, 'both streams');
    expect(byHeader.isEnded() || byTicket.isEnded()).toBe(false);
    const logout = await fetch(`${t.url}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.status).toBe(204);
    await waitFor(async () => byHeader.isEnded() && byTicket.isEnded(), 'the streams to end', 30_000);
  });

  it('ends the streams of a deactivated user at the next session check, and only theirs', async () => {
    const bob = await stream('', { authorization: `Bearer ${await t.login('bob')}` });
    const alice = await stream('', { authorization: `Bearer ${await t.login('alice')}` });
    await waitFor(async () => lastCount(bob) !== undefined && lastCount(alice) !== undefined, 'both streams');
    await t.dataSource.query('UPDATE users SET isActive = 0 WHERE id = ?', [t.user('bob').id]);
    try {
      await waitFor(async () => bob.isEnded(), "bob's stream to end", 30_000);
      // Two more checks (one per second here) pass: alice's stream is still open.
      const beats = alice.events.filter((event) => event.comment === 'heartbeat').length;
      await waitFor(
        async () => alice.events.filter((event) => event.comment === 'heartbeat').length >= beats + 2,
        'two more heartbeats',
      );
      expect(alice.isEnded()).toBe(false);
    } finally {
      await t.dataSource.query('UPDATE users SET isActive = 1 WHERE id = ?', [t.user('bob').id]);
      alice.close();
    }
  });

  it('documents the stream as text/event-stream in the OpenAPI document', async () => {
    const response = await fetch(`${t.url}/docs-json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
    };
    expect(Object.keys(document.paths['/api/notifications/stream'].get.responses['200'].content ?? {})).toContain(
      'text/event-stream',
    );
    expect(document.paths['/api/notifications/{notificationId}']).toBeDefined();
  });
});
