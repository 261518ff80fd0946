import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationStreamTicket } from '../../src/notifications/entities/notification-stream-ticket.entity.js';
import { ticketId } from '../../src/notifications/notifications.service.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller } from '../support/inbox.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const USERS = ['alice', 'bob', 'erin', 'admin'];

describe.each(databasesUnderTest())('POST /api/notifications/stream-tickets on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  let call: ReturnType<typeof apiCaller>;

  beforeAll(async () => {
    t = await createTestApp(kind);
    for (const username of USERS) tokens[username] = await t.login(username);
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Tickets that expired a minute ago, as a busy service leaves them behind. */
  async function insertExpired(count: number): Promise<string[]> {
    const past = new Date(Date.now() - 60_000);
    const rows = Array.from({ length: count }, (_, index) => ({
      id: ticketId(randomBytes(32).toString('base64url')),
      userId: t.user(USERS[index % USERS.length]).id,
      tokenVersion: 0,
      tokenExpiresAt: past,
      expiresAt: past,
    }));
    await t.dataSource.getRepository(NotificationStreamTicket).insert(rows);
    return rows.map((row) => row.id);
  }

  it('answers 201 to 40 concurrent ticket requests among expired tickets (issue 30 #7: no deadlock)', async () => {
    for (let round = 0; round < 3; round++) {
      await insertExpired(40);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          call(USERS[index % USERS.length], 'POST', '/api/notifications/stream-tickets'),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 40 }, () => 201));
    }
  });

  it('removes expired tickets as new ones are made, and keeps the live ones', async () => {
    const expired = await insertExpired(30);
    const answer = await call('alice', 'POST', '/api/notifications/stream-tickets');
    expect(answer.status).toBe(201);
    const tickets = t.dataSource.getRepository(NotificationStreamTicket);
    const left = await tickets.createQueryBuilder('t').where('t.id IN (:...ids)', { ids: expired }).getCount();
    expect(left).toBe(0);
    await expect(tickets.existsBy({ id: ticketId(answer.body.ticket) })).resolves.toBe(true);
  });
});
