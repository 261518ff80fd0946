import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationDispatcher } from '../../src/notifications/delivery/notification-dispatcher.js';
import { databasesUnderTest } from '../support/databases.js';
import { openSse, recordEvent, startInstance, undispatchedEvents, waitFor } from '../support/inbox.js';
import { LocalSmtp } from '../support/local-smtp.js';
import { freePort } from '../support/service-process.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface EmailRow {
  id: string;
  userId: string;
  status: string;
  deliveryStatus: string | null;
  attempts: number;
  subject: string;
}

async function emailsOf(t: TestApp, userId: string): Promise<EmailRow[]> {
  const rows = await t.dataSource.query<(Omit<EmailRow, 'attempts'> & { attempts: number | string })[]>(
    `SELECT id, userId, status, deliveryStatus, attempts, subject FROM notifications
     WHERE userId = ? AND notificationType = 'email' AND sourceEventId IS NOT NULL ORDER BY createdAt, id`,
    [userId],
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

describe.each(databasesUnderTest())('e-mail notifications on %s', (kind) => {
  let t: TestApp;
  let smtp: LocalSmtp;
  let bobsDocument: string;

  /** erin changes bob's document (an event bob's defaults want by e-mail); answers bob's new e-mail row. */
  async function newEmailForBob(): Promise<EmailRow> {
    const bob = t.user('bob').id;
    const known = (await emailsOf(t, bob)).length;
    await recordEvent(t, {
      type: 'document.updated',
      actorId: t.user('erin').id,
      documentId: bobsDocument,
      payload: {},
    });
    return waitFor(async () => (await emailsOf(t, bob))[known], 'the e-mail notification');
  }
  const rowOf = async (id: string) => (await emailsOf(t, t.user('bob').id)).find((row) => row.id === id)!;

  beforeAll(async () => {
    smtp = new LocalSmtp(await freePort());
    await smtp.start();
    t = await createTestApp(kind, {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'DMS <dms@example.test>',
      NOTIFY_RETRY_BASE_SECONDS: '1',
      NOTIFY_MAX_ATTEMPTS: '3',
    });
    bobsDocument = t.seed.documents.find((candidate) => candidate.uploadedBy === t.user('bob').id)!.id;
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('sends a pending e-mail and marks it sent; the SMTP server received it once', async () => {
    smtp.mode = 'accept';
    const row = await newEmailForBob();
    const sent = await waitFor(async () => {
      const current = await rowOf(row.id);
      return current.status === 'sent' && current;
    }, 'sent');
    expect(sent).toMatchObject({ deliveryStatus: 'sent', attempts: 1 });
    const messages = smtp.received.filter((message) => message.raw.includes(row.id));
    expect(messages).toHaveLength(1);
    const [{ email }] = await t.dataSource.query<{ email: string }[]>('SELECT email FROM users WHERE id = ?', [
      t.user('bob').id,
    ]);
    expect(messages[0].to).toEqual([email]);
    expect(messages[0].raw).toContain('Erin Editor');
    // The in-app notification of the same event is there too.
    const [inApp] = await t.dataSource.query<{ n: number | string }[]>(
      "SELECT COUNT(*) AS n FROM notifications WHERE userId = ? AND notificationType = 'in_app' AND sourceEventId = (SELECT sourceEventId FROM notifications WHERE id = ?)",
      [t.user('bob').id, row.id],
    );
    expect(Number(inApp.n)).toBe(1);
  });

  it('fails at once on a permanent (5xx) rejection', async () => {
    smtp.mode = 'permanent';
    const row = await newEmailForBob();
    const failed = await waitFor(async () => {
      const current = await rowOf(row.id);
      return current.status === 'failed' && current;
    }, 'failed');
    expect(failed).toMatchObject({ deliveryStatus: 'failed', attempts: 1 });
    smtp.mode = 'accept';
  });

  it('retries a temporary (4xx) failure with backoff up to NOTIFY_MAX_ATTEMPTS, then fails', async () => {
    smtp.mode = 'temporary';
    const row = await newEmailForBob();
    await waitFor(async () => (await rowOf(row.id)).attempts === 1, 'the first attempt');
    const pending = await rowOf(row.id);
    expect(pending.status).toBe('pending');
    const failed = await waitFor(
      async () => {
        const current = await rowOf(row.id);
        return current.status === 'failed' && current;
      },
      'failed after the retries',
      20_000,
    );
    expect(failed.attempts).toBe(3);
    smtp.mode = 'accept';
  });

  it('survives an SMTP outage and sends once the server is back', async () => {
    await smtp.stop();
    try {
      const row = await newEmailForBob();
      // The failed attempt is recorded: a retry time instead of the claim's 2-minute lease.
      await waitFor(async () => {
        const [current] = await t.dataSource.query<{ attempts: number | string; nextAttemptAt: Date | string }[]>(
          'SELECT attempts, nextAttemptAt FROM notifications WHERE id = ?',
          [row.id],
        );
        // mysql2 answers a Date; SQLite the stored UTC text.
        const at =
          current.nextAttemptAt instanceof Date
            ? current.nextAttemptAt
            : new Date(`${current.nextAttemptAt.replace(' ', 'T')}Z`);
        return Number(current.attempts) >= 1 && at.getTime() < Date.now() + 60_000;
      }, 'a failed attempt during the outage');
      expect((await rowOf(row.id)).status).toBe('pending');
      await smtp.start();
      const sent = await waitFor(
        async () => {
          const current = await rowOf(row.id);
          return current.status === 'sent' && current;
        },
        'sent after the outage',
        20_000,
      );
      expect(sent.attempts).toBeGreaterThanOrEqual(2);
      expect(smtp.received.filter((message) => message.raw.includes(row.id))).toHaveLength(1);
    } finally {
      if (!smtp.running) await smtp.start();
    }
  });

  it('makes no e-mail when the recipient turned e-mail off', async () => {
    const token = await t.login('bob');
    const put = await fetch(`${t.url}/api/notifications/preferences`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ preferences: { 'document.updated': { in_app: true, email: false } } }),
    });
    expect(put.status).toBe(200);
    const before = (await emailsOf(t, t.user('bob').id)).length;
    await recordEvent(t, { type: 'document.updated', actorId: t.user('erin').id, documentId: bobsDocument });
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'dispatch');
    expect(await emailsOf(t, t.user('bob').id)).toHaveLength(before);
    await fetch(`${t.url}/api/notifications/preferences`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ preferences: { 'document.updated': { in_app: true, email: true } } }),
    });
  });
});

describe.runIf(databasesUnderTest().includes('mysql') && process.env.TEST_REDIS_URL)(
  'two instances sharing MariaDB, Redis and an SMTP server',
  () => {
    let t: TestApp;
    let smtp: LocalSmtp;
    let second: { app: NestFastifyApplication; url: string };

    beforeAll(async () => {
      smtp = new LocalSmtp(await freePort());
      await smtp.start();
      const shared = {
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        REDIS_URL: process.env.TEST_REDIS_URL!,
        // Its own channel: suites running at once never hear each other.
        REDIS_KEY_PREFIX: `dms-test-${randomBytes(6).toString('hex')}:`,
      };
      t = await createTestApp('mysql', shared);
      second = await startInstance({ ...t.env, ...shared });
    });

    afterAll(async () => {
      await second?.app.close();
      await t?.close();
      await smtp?.stop();
    });

    it('dispatch and e-mail: every event exactly once per recipient and channel, every e-mail sent once', async () => {
      const events = 30;
      for (let index = 0; index < events; index++) {
        await recordEvent(t, {
          type: 'project.member_added',
          actorId: t.user('admin').id,
          projectId: t.seed.projects[index % 2].id,
          subjectUserId: t.user(['alice', 'bob', 'erin'][index % 3]).id,
        });
      }
      await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'dispatch by both instances');
      const rows = await t.dataSource.query<{ id: string; notificationType: string }[]>(
        "SELECT id, notificationType FROM notifications WHERE event = 'project.member_added'",
      );
      // One in-app and one e-mail (the default for project.member_added) per event.
      expect(rows.filter((row) => row.notificationType === 'in_app')).toHaveLength(events);
      const emails = rows.filter((row) => row.notificationType === 'email');
      expect(emails).toHaveLength(events);
      await waitFor(
        async () => {
          const [pending] = await t.dataSource.query<{ n: number | string }[]>(
            "SELECT COUNT(*) AS n FROM notifications WHERE notificationType = 'email' AND status = 'pending' AND sourceEventId IS NOT NULL",
          );
          return Number(pending.n) === 0;
        },
        'every e-mail sent',
        20_000,
      );
      for (const email of emails) {
        expect(smtp.received.filter((message) => message.raw.includes(email.id))).toHaveLength(1);
      }
    });

    it('a notification dispatched by one instance reaches a stream open on the other', async () => {
      // The second instance does not dispatch: the first one must, and Redis carries it over.
      await second.app.get(NotificationDispatcher).onModuleDestroy();
      const token = await t.login('bob');
      const client = await openSse(`${second.url}/api/notifications/stream`, { authorization: `Bearer ${token}` });
      try {
        await waitFor(async () => client.events.some((event) => event.event === 'unread-count'), 'the stream');
        await recordEvent(t, {
          type: 'document.created',
          actorId: t.user('alice').id,
          projectId: t.seed.projects[0].id,
          documentId: t.seed.documents[0].id,
        });
        const event = await waitFor(
          async () => client.events.find((candidate) => candidate.event === 'notification'),
          'the notification on the other instance',
        );
        expect(JSON.parse(event.data!)).toMatchObject({ event: 'document.created', userId: t.user('bob').id });
      } finally {
        client.close();
      }
    });
  },
);
