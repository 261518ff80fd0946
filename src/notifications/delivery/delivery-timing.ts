import { isTimeZone } from '../../common/time/time-zone.js';
import { isUrgentEvent } from '../../events/domain-event.js';

/** When an e-mail notification goes out (per event type, in the preferences). */
export const EMAIL_MODES = ['immediate', 'if_unread', 'hourly', 'daily', 'off'] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];
/** Modes whose e-mails go out together, one digest per user and period. */
export const DIGEST_MODES: EmailMode[] = ['hourly', 'daily'];
export const IF_UNREAD_DELAY_MINUTES = { min: 1, max: 1440, default: 15 } as const;

/** A user's attention settings as timing needs them. */
export interface AttentionSettings {
  timezone: string;
  quietHoursStart: string | null;
  quietHoursEnd: string | null;
  urgentBypass: boolean;
  snoozedUntil: Date | null;
}

const MINUTE = 60_000;
const DAY_MINUTES = 1440;

/** Minutes since local midnight of `at` in the time zone (UTC when the name is unknown). */
export function localMinutes(at: Date, timezone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: isTimeZone(timezone) ? timezone : 'UTC',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return value('hour') * 60 + value('minute');
}

const startOfMinute = (at: Date) => new Date(Math.floor(at.getTime() / MINUTE) * MINUTE);
/** The next instant after `at` whose local time is `target` minutes after midnight (within a day). */
function nextLocal(at: Date, target: number, timezone: string): Date {
  const ahead = (((target - localMinutes(at, timezone)) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
  return new Date(startOfMinute(at).getTime() + ahead * MINUTE);
}

/**
 * When an e-mail made at `now` is first due: now (immediate), after the delay (if_unread), at the
 * next full hour (hourly) or at `dailyHour` (daily), local time in the user's time zone.
 */
export function firstDue(
  mode: Exclude<EmailMode, 'off'>,
  delayMinutes: number,
  now: Date,
  timezone: string,
  dailyHour: number,
): Date {
  if (mode === 'if_unread') return new Date(now.getTime() + delayMinutes * MINUTE);
  if (mode === 'hourly') {
    const minute = localMinutes(now, timezone) % 60;
    return new Date(startOfMinute(now).getTime() + (60 - minute) * MINUTE);
  }
  return mode === 'daily' ? nextLocal(now, dailyHour * 60, timezone) : now;
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether local time `minutes` falls in [start, end), a window that may cross midnight. */
function inWindow(minutes: number, start: number, end: number): boolean {
  return start <= end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}

/**
 * When an e-mail due at `at` may go: null if now, else the end of the quiet hours or snooze it
 * falls in (whichever ends later when they overlap). Urgent events pass when urgentBypass is on.
 */
export function heldUntil(at: Date, settings: AttentionSettings, event: string | null): Date | null {
  if (settings.urgentBypass && event !== null && isUrgentEvent(event)) return null;
  let until = at;
  // At most one snooze and two quiet windows can chain; four rounds settle any combination.
  for (let round = 0; round < 4; round++) {
    let moved = false;
    if (settings.snoozedUntil && settings.snoozedUntil.getTime() > until.getTime()) {
      until = settings.snoozedUntil;
      moved = true;
    }
    const { quietHoursStart: start, quietHoursEnd: end } = settings;
    if (
      start &&
      end &&
      start !== end &&
      inWindow(localMinutes(until, settings.timezone), toMinutes(start), toMinutes(end))
    ) {
      until = nextLocal(until, toMinutes(end), settings.timezone);
      moved = true;
    }
    if (!moved) break;
  }
  return until.getTime() === at.getTime() ? null : until;
}
