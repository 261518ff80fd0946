import { DOMAIN_EVENT_TYPES, eventDefinition, type DomainEventType } from '../events/domain-event.js';
import { EMAIL_MODES, IF_UNREAD_DELAY_MINUTES, type EmailMode } from './delivery/delivery-timing.js';

/** When e-mail goes out for one event type. */
export interface EmailChoice {
  mode: EmailMode;
  /** if_unread's delay in minutes (kept, and answered, whatever the mode). */
  delayMinutes: number;
}

/** Which channels a user wants for one event type, and when e-mail goes out. */
export interface ChannelChoice {
  in_app: boolean;
  email: EmailChoice;
}
export type PreferenceSet = Record<DomainEventType, ChannelChoice>;

/** The defaults every user starts with, as the event catalogue declares them. */
export function defaultChoice(event: DomainEventType): ChannelChoice {
  const delayMinutes = IF_UNREAD_DELAY_MINUTES.default;
  const { email, offByDefault } = eventDefinition(event);
  if (offByDefault) return { in_app: false, email: { mode: 'off', delayMinutes } };
  return { in_app: true, email: { mode: email, delayMinutes } };
}

/** A stored row as a choice: rows from before e-mail modes have only the `email` flag (immediate or off). */
export function storedChoice(row: {
  inApp: unknown;
  email: unknown;
  emailMode: string | null;
  emailDelayMinutes: number | null;
}): ChannelChoice {
  const mode =
    row.emailMode && (EMAIL_MODES as readonly string[]).includes(row.emailMode)
      ? (row.emailMode as EmailMode)
      : row.email
        ? 'immediate'
        : 'off';
  return {
    in_app: Boolean(row.inApp),
    email: { mode, delayMinutes: row.emailDelayMinutes ?? IF_UNREAD_DELAY_MINUTES.default },
  };
}

/** Every event type with the user's stored choices over the defaults. */
export function preferenceSet(
  stored: {
    event: string;
    inApp: unknown;
    email: unknown;
    emailMode: string | null;
    emailDelayMinutes: number | null;
  }[],
): PreferenceSet {
  const set = Object.fromEntries(DOMAIN_EVENT_TYPES.map((event) => [event, defaultChoice(event)])) as PreferenceSet;
  for (const row of stored) {
    if ((DOMAIN_EVENT_TYPES as readonly string[]).includes(row.event)) {
      set[row.event as DomainEventType] = storedChoice(row);
    }
  }
  return set;
}
