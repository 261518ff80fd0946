import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailDeliveryWorker } from '../../src/notifications/delivery/email-delivery.worker.js';
import { databasesUnderTest } from '../support/databases.js';
import { apiCaller, recordEvent, undispatchedEvents, waitFor, type Json } from '../support/inbox.js';
import { LocalSmtp } from '../support/local-smtp.js';
import { freePort } from '../support/service-process.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { TestClock } from '../support/test-clock.js';

const MINUTE = 60_000;

interface Row {
  id: string;
  notificationType: string;
  status: string;
  nextAttemptAt: Date | string | null;
  sourceEventId: string;
}

describe.each(databasesUnderTest())('e-mail timing on %s', (kind) => {
  let t: TestApp;
  let smtp: LocalSmtp;
  let call: (username: string, method: string, path: string, body?: unknown) => Promise<Json>;
  const clock = new TestClock(new Date('2026-06-01T08:05:00.000Z'));
  const documentOf = (username: string) => t.seed.documents.find((d) => d.uploadedBy === t.user(username).id)!.id;

  /** erin changes the user's document; answers the user's notification rows of that event once dispatched. */
  async function changeDocumentOf(username: string): Promise<{ email: Row; inApp: Row }> {
    await recordEvent(t, { type: 'document.updated', actorId: t.user('erin').id, documentId: documentOf(username) });
    return rowsOfLatestEvent(username);
  }

  async function rowsOfLatestEvent(username: string): Promise<{ email: Row; inApp: Row }> {
    await waitFor(async () => (await undispatchedEvents(t.dataSource)) === 0, 'the event dispatched');
    const rows = await t.dataSource.query<Row[]>(
      `SELECT id, notificationType, status, nextAttemptAt, sourceEventId FROM notifications WHERE userId = ?
         AND sourceEventId = (SELECT id FROM outbox_events ORDER BY createdAt DESC, id DESC LIMIT 1)`,
      [t.user(username).id],
    );
    return {
      email: rows.find((row) => row.notificationType === 'email')!,
      inApp: rows.find((row) => row.notificationType === 'in_app')!,
    };
  }

  const rowById = async (id: string) =>
    (await t.dataSource.query<Row[]>('SELECT id, status, nextAttemptAt FROM notifications WHERE id = ?', [id]))[0];
  const mailsTo = (username: string) => smtp.received.filter((mail) => mail.to.includes(`${username}@example.com`));
  const deliver = () => t.app.get(EmailDeliveryWorker).deliverBatch();
  const setEmail = (username: string, event: string, email: unknown) =>
    call(username, 'PUT', '/api/notifications/preferences', { preferences: { [event]: { in_app: true, email } } });

  beforeAll(async () => {
    smtp = new LocalSmtp(await freePort());
    await smtp.start();
    t = await createTestApp(
      kind,
      { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'DMS <dms@example.test>' },
      undefined,
      { clock },
    );
    const tokens = { alice: await t.login('alice'), bob: await t.login('bob') };
    call = apiCaller(t, tokens);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('if_unread: sends when still unread after the delay, cancels when read in time', async () => {
    const set = await setEmail('bob', 'document.updated', { mode: 'if_unread', delayMinutes: 15 });
    expect(set.body.preferences['document.updated']).toEqual({
      in_app: true,
      email: { mode: 'if_unread', delayMinutes: 15 },
    });
    const unread = await changeDocumentOf('bob');
    await deliver();
    expect((await rowById(unread.email.id)).status).toBe('pending');
    clock.advance(15 * MINUTE + 1000);
    await deliver();
    await waitFor(async () => (await rowById(unread.email.id)).status === 'sent', 'the e-mail sent');
    expect(mailsTo('bob').filter((mail) => mail.raw.includes(unread.email.id))).toHaveLength(1);

    const read = await changeDocumentOf('bob');
    expect((await call('bob', 'PATCH', `/api/notifications/${read.inApp.id}`, { read: true })).status).toBe(200);
    const before = mailsTo('bob').length;
    clock.advance(15 * MINUTE + 1000);
    await deliver();
    await waitFor(async () => (await rowById(read.email.id)) === undefined, 'the e-mail cancelled');
    expect(mailsTo('bob')).toHaveLength(before);
  });

  it('an hourly digest holds several notifications in one e-mail, grouped by document', async () => {
    await setEmail('alice', 'document.updated', { mode: 'hourly' });
    const rows: Row[] = [];
    for (let index = 0; index < 3; index++) rows.push((await changeDocumentOf('alice')).email);
    await deliver();
    expect(mailsTo('alice')).toHaveLength(0);
    const due = new Date(rows[0].nextAttemptAt!);
    expect(due.getUTCMinutes()).toBe(0);
    clock.set(new Date(due.getTime() + 1000));
    // Two workers at once, as two instances: the digest is claimed whole by one of them.
    await Promise.all([deliver(), deliver()]);
    await waitFor(async () => {
      const states = await Promise.all(rows.map(async (row) => (await rowById(row.id)).status));
      return states.every((status) => status === 'sent');
    }, 'the digest rows sent');
    const mails = mailsTo('alice');
    expect(mails).toHaveLength(1);
    expect(mails[0].raw).toContain('Your hourly digest: 3 notifications');
    expect(mails[0].raw.match(/Erin Editor changed the details/g)).toHaveLength(3);
  });

  it('quiet hours hold e-mails until they end; urgent events pass', async () => {
    await setEmail('bob', 'document.updated', { mode: 'immediate' });
    const hour = clock.now().getUTCHours();
    const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
    const settings = await call('bob', 'PATCH', '/api/auth/me', {
      settings: { timezone: 'UTC', quietHours: { start: hh(hour), end: hh(hour + 1) } },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.settings).toEqual({
      timezone: 'UTC',
      quietHours: { start: hh(hour), end: hh(hour + 1) },
      urgentBypass: true,
      snoozedUntil: null,
    });
    const held = await changeDocumentOf('bob');
    await deliver();
    const end = new Date(clock.now());
    end.setUTCHours(hour + 1, 0, 0, 0);
    await waitFor(
      async () => new Date((await rowById(held.email.id)).nextAttemptAt!).getTime() === end.getTime(),
      'the e-mail held until the quiet hours end',
    );
    expect((await rowById(held.email.id)).status).toBe('pending');

    // A mention is urgent: it passes while urgentBypass is on.
    await recordEvent(t, {
      type: 'comment.mentioned',
      actorId: t.user('erin').id,
      documentId: documentOf('bob'),
      subjectUserId: t.user('bob').id,
    });
    const urgent = await rowsOfLatestEvent('bob');
    await deliver();
    await waitFor(async () => (await rowById(urgent.email.id)).status === 'sent', 'the urgent e-mail sent');
    expect((await rowById(held.email.id)).status).toBe('pending');

    clock.set(new Date(end.getTime() + 1000));
    await deliver();
    await waitFor(async () => (await rowById(held.email.id)).status === 'sent', 'the held e-mail sent');
    expect(mailsTo('bob').filter((mail) => mail.raw.includes(held.email.id))).toHaveLength(1);
  });

  it('a snooze holds e-mails until it ends; DELETE ends it', async () => {
    await call('bob', 'PATCH', '/api/auth/me', { settings: { quietHours: null } });
    const until = new Date(clock.now().getTime() + 30 * MINUTE);
    const snoozed = await call('bob', 'POST', '/api/notifications/snooze', { until: until.toISOString() });
    expect(snoozed).toEqual({ status: 200, body: { snoozedUntil: until.toISOString() } });
    const held = await changeDocumentOf('bob');
    await deliver();
    await waitFor(
      async () => new Date((await rowById(held.email.id)).nextAttemptAt!).getTime() === until.getTime(),
      'the e-mail held until the snooze ends',
    );
    expect((await call('bob', 'DELETE', '/api/notifications/snooze')).status).toBe(204);
    expect((await call('bob', 'GET', '/api/auth/me')).body.settings.snoozedUntil).toBeNull();
    const past = await call('bob', 'POST', '/api/notifications/snooze', { until: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    clock.set(new Date(until.getTime() + 1000));
    await deliver();
    await waitFor(async () => (await rowById(held.email.id)).status === 'sent', 'the e-mail sent after the snooze');
  });
});
