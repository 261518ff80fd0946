import { describe, expect, it } from 'vitest';
import { firstDue, heldUntil, type AttentionSettings } from './delivery-timing.js';

const at = (iso: string) => new Date(iso);
const settings = (fields: Partial<AttentionSettings>): AttentionSettings => ({
  timezone: 'UTC',
  quietHoursStart: null,
  quietHoursEnd: null,
  urgentBypass: true,
  snoozedUntil: null,
  ...fields,
});

describe('firstDue', () => {
  const now = at('2026-03-10T10:17:30.000Z');
  it('immediate now, if_unread after the delay', () => {
    expect(firstDue('immediate', 15, now, 'UTC', 8)).toEqual(now);
    expect(firstDue('if_unread', 15, now, 'UTC', 8)).toEqual(at('2026-03-10T10:32:30.000Z'));
  });
  it('hourly at the next full local hour (also in a half-hour zone)', () => {
    expect(firstDue('hourly', 15, now, 'UTC', 8)).toEqual(at('2026-03-10T11:00:00.000Z'));
    // Kolkata is UTC+05:30: 15:47 local, next local full hour 16:00 = 10:30 UTC.
    expect(firstDue('hourly', 15, now, 'Asia/Kolkata', 8)).toEqual(at('2026-03-10T10:30:00.000Z'));
  });
  it('daily at the digest hour in the user time zone, tomorrow when it has passed', () => {
    expect(firstDue('daily', 15, now, 'UTC', 8)).toEqual(at('2026-03-11T08:00:00.000Z'));
    // New York is UTC-4 on 10 March 2026 (after the DST change): 06:17 local, 08:00 local = 12:00 UTC.
    expect(firstDue('daily', 15, now, 'America/New_York', 8)).toEqual(at('2026-03-10T12:00:00.000Z'));
  });
});

describe('heldUntil', () => {
  const quiet = settings({ quietHoursStart: '22:00', quietHoursEnd: '07:00', timezone: 'Europe/Berlin' });
  it('holds inside quiet hours across midnight until their local end', () => {
    // 23:30 Berlin (UTC+1 in January) is 22:30 UTC; the end, 07:00 Berlin, is 06:00 UTC.
    expect(heldUntil(at('2026-01-05T22:30:00Z'), quiet, 'document.updated')).toEqual(at('2026-01-06T06:00:00Z'));
    expect(heldUntil(at('2026-01-06T05:00:00Z'), quiet, 'document.updated')).toEqual(at('2026-01-06T06:00:00Z'));
  });
  it('lets go outside quiet hours', () => {
    expect(heldUntil(at('2026-01-06T06:00:00Z'), quiet, 'document.updated')).toBeNull();
    expect(heldUntil(at('2026-01-06T12:00:00Z'), quiet, 'document.updated')).toBeNull();
  });
  it('urgent events pass when urgentBypass is on, wait when it is off', () => {
    expect(heldUntil(at('2026-01-05T22:30:00Z'), quiet, 'comment.mentioned')).toBeNull();
    const strict = { ...quiet, urgentBypass: false };
    expect(heldUntil(at('2026-01-05T22:30:00Z'), strict, 'comment.mentioned')).toEqual(at('2026-01-06T06:00:00Z'));
  });
  it('holds until a snooze ends, then through quiet hours it ends in', () => {
    const snoozed = { ...quiet, snoozedUntil: at('2026-01-06T05:00:00Z') };
    expect(heldUntil(at('2026-01-05T12:00:00Z'), snoozed, null)).toEqual(at('2026-01-06T06:00:00Z'));
    const plain = settings({ snoozedUntil: at('2026-01-05T15:00:00Z') });
    expect(heldUntil(at('2026-01-05T12:00:00Z'), plain, null)).toEqual(at('2026-01-05T15:00:00Z'));
    expect(heldUntil(at('2026-01-05T16:00:00Z'), plain, null)).toBeNull();
  });
});
