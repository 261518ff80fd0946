import type { NotificationStatus, NotificationType } from '../entities/notification.entity.js';
import type { ChannelChoice } from '../notification-preferences.js';

/** The recipient as a channel needs them. */
export interface Recipient {
  id: string;
  email: string;
  displayName: string;
  /** IANA time zone of their digests and quiet hours. */
  timezone: string;
}

/** What a channel is asked to deliver. */
export interface OutgoingNotification {
  id: string;
  subject: string;
  message: string;
}

/**
 * One way of reaching a user. The dispatcher makes one notification per enabled channel and
 * recipient; a channel whose delivery happens elsewhere (e-mail: an SMTP worker) starts its
 * notifications as `pending` and implements `deliver`. To add one (sms, push): implement this,
 * provide it in NotificationsModule under NOTIFICATION_CHANNELS, and add its preference key.
 */
export interface NotificationChannel {
  readonly type: NotificationType;
  /** Whether this instance can deliver at all (e-mail: SMTP_URL is set). */
  readonly configured: boolean;
  /** Whether the recipient's preferences ask for this channel. */
  wanted(choice: ChannelChoice, recipient: Recipient): boolean;
  /** The status a new notification starts in: `sent` when making it is the delivery. */
  readonly initialStatus: NotificationStatus;
  deliver?(notification: OutgoingNotification, recipient: Recipient): Promise<void>;
}

export const NOTIFICATION_CHANNELS = Symbol('NOTIFICATION_CHANNELS');

/** In the inbox: made is delivered. */
export class InAppChannel implements NotificationChannel {
  readonly type = 'in_app' as const;
  readonly configured = true;
  readonly initialStatus = 'sent' as const;
  wanted(choice: ChannelChoice): boolean {
    return choice.in_app;
  }
}

/** A delivery failure that retrying will not fix (SMTP 5xx). */
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
}
