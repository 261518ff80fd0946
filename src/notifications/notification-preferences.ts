import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../events/domain-event.js';

/** Which channels a user wants for one event type. */
export interface ChannelChoice {
  in_app: boolean;
  email: boolean;
}
export type PreferenceSet = Record<DomainEventType, ChannelChoice>;

/** E-mail by default only for changes to documents one works on and for being added to a project. */
const EMAIL_BY_DEFAULT = new Set<DomainEventType>([
  'document.updated',
  'document.version_added',
  'document.status_changed',
  'project.member_added',
  'comment.mentioned',
  // A review request is urgent: it asks for an answer by a date.
  'review.requested',
  'review.reminder',
  'review.overdue',
  'webhook.disabled',
]);

/** Events nobody hears of unless they ask (a share link's sharer, told of each download). */
const OFF_BY_DEFAULT = new Set<DomainEventType>(['share.accessed']);

export function defaultChoice(event: DomainEventType): ChannelChoice {
  if (OFF_BY_DEFAULT.has(event)) return { in_app: false, email: false };
  return { in_app: true, email: EMAIL_BY_DEFAULT.has(event) };
}

/** Every event type with the user's stored choices over the defaults. */
export function preferenceSet(stored: { event: string; inApp: unknown; email: unknown }[]): PreferenceSet {
  const set = Object.fromEntries(DOMAIN_EVENT_TYPES.map((event) => [event, defaultChoice(event)])) as PreferenceSet;
  for (const row of stored) {
    if ((DOMAIN_EVENT_TYPES as readonly string[]).includes(row.event)) {
      set[row.event as DomainEventType] = { in_app: Boolean(row.inApp), email: Boolean(row.email) };
    }
  }
  return set;
}
