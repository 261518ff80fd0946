/**
 * What happened, as the transactional outbox records it: written in the same transaction as the
 * change itself (so no event is lost and none is recorded for a change that rolled back), and
 * turned into notifications by the dispatcher afterwards.
 */
export interface DomainEvent {
  type: DomainEventType;
  /** Who made the change. */
  actorId: string;
  projectId: string | null;
  documentId: string | null;
  /** The user the event is for alone (member_added: the member; review.*: a reviewer or requester; search.matched, webhook.disabled: the owner). */
  subjectUserId: string | null;
  /** What the notification texts need, e.g. `{ title, actorName, from, to }`; never secrets. */
  payload: Record<string, unknown>;
}

/** Who `actorId` names for an event the service itself caused (a webhook disabled after failures). */
export const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

/** What an event's texts can name: `title` is quoted, names fall back to "Someone", "a project". */
export interface EventTextInput {
  actor: string;
  title: string;
  project: string;
  payload: Record<string, unknown>;
}

/** Everything the service says about one kind of event; a new event is one entry here. */
export interface EventDefinition {
  /** E-mail by default: immediately, or off (in-app is on by default unless `offByDefault`). */
  email: 'immediate' | 'off';
  /** Nobody hears of it unless they ask. */
  offByDefault?: true;
  /** Passes quiet hours and snooze when the user's urgentBypass is on. */
  urgent?: true;
  /** After it, its document may match saved searches it did not, or stop matching them. */
  changesSearchMatches?: true;
  /** The notification's subject and message. */
  text(input: EventTextInput): { subject: string; message: string };
}

const said = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
const due = (value: unknown): string => (typeof value === 'string' ? ` by ${value}` : '');
const quoted = (value: unknown): string => (said(value) ? ` "${said(value)}"` : '');

export const EVENT_CATALOGUE = {
  'document.created': {
    changesSearchMatches: true,
    email: 'off',
    text: ({ actor, title, project }) => ({
      subject: `New document ${title}`,
      message: `${actor} added the document ${title} to the project ${project}.`,
    }),
  },
  'document.updated': {
    changesSearchMatches: true,
    email: 'immediate',
    text: ({ actor, title }) => ({
      subject: `${title} was updated`,
      message: `${actor} changed the details of the document ${title}.`,
    }),
  },
  'document.version_added': {
    changesSearchMatches: true,
    email: 'immediate',
    text: ({ actor, title, payload }) => ({
      subject: `New version of ${title}`,
      message: `${actor} uploaded a new version of the document ${title}${typeof payload.version === 'number' ? ` (version ${payload.version})` : ''}.`,
    }),
  },
  'document.status_changed': {
    changesSearchMatches: true,
    email: 'immediate',
    text: ({ actor, title, payload }) => {
      const from = said(payload.from);
      const to = said(payload.to);
      return {
        subject: to ? `${title} is now ${to}` : `The status of ${title} changed`,
        message: `${actor} changed the status of the document ${title}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}.`,
      };
    },
  },
  'document.deleted': {
    changesSearchMatches: true,
    email: 'off',
    text: ({ actor, title }) => ({
      subject: `${title} was moved to the trash`,
      message: `${actor} deleted the document ${title}.`,
    }),
  },
  'document.restored': {
    changesSearchMatches: true,
    email: 'off',
    text: ({ actor, title }) => ({
      subject: `${title} was restored`,
      message: `${actor} restored the document ${title} from the trash.`,
    }),
  },
  'document.retention_applied': {
    email: 'off',
    text: ({ title, payload }) => {
      const done = { archive: 'archived', trash: 'moved to the trash', purge: 'deleted for good' }[
        String(payload.action) as 'archive' | 'trash' | 'purge'
      ];
      const days = typeof payload.days === 'number' ? ` after ${payload.days} days` : '';
      return {
        subject: `${title} was ${done ?? 'retained'} by retention`,
        message: `The retention policy of its document type${days} ${done ? `has ${done}` : 'applied to'} the document ${title}.`,
      };
    },
  },
  'project.member_added': {
    email: 'immediate',
    text: ({ actor, project, payload }) => ({
      subject: `You were added to ${project}`,
      message: `${actor} added you to the project ${project}${said(payload.role) ? ` as ${said(payload.role)}` : ''}.`,
    }),
  },
  'comment.created': {
    email: 'off',
    text: ({ actor, title, payload }) => ({
      subject: `New comment on ${title}`,
      message: `${actor} commented on the document ${title}: ${said(payload.excerpt) ?? ''}`,
    }),
  },
  'comment.mentioned': {
    email: 'immediate',
    urgent: true,
    text: ({ actor, title, payload }) => ({
      subject: `${actor} mentioned you on ${title}`,
      message: `${actor} mentioned you in a comment on the document ${title}: ${said(payload.excerpt) ?? ''}`,
    }),
  },
  'review.requested': {
    email: 'immediate',
    urgent: true,
    text: ({ actor, title, payload }) => ({
      subject: `Urgent: review ${title}${due(payload.dueAt)}`,
      message: `${actor} asks you to review the document ${title}${due(payload.dueAt)}.${quoted(payload.message)}`,
    }),
  },
  'review.decided': {
    email: 'off',
    text: ({ actor, title, payload }) => {
      const verb = payload.decision === 'approve' ? 'approved' : 'rejected';
      return {
        subject: `${actor} ${verb} ${title}`,
        message: `${actor} ${verb} the document ${title} in review.${quoted(payload.comment)}`,
      };
    },
  },
  'review.reminder': {
    email: 'immediate',
    text: ({ title, payload }) => ({
      subject: `Reminder: review ${title}${due(payload.dueAt)}`,
      message: `Your review of the document ${title} is due${due(payload.dueAt) || ' soon'}.`,
    }),
  },
  'review.overdue': {
    email: 'immediate',
    text: ({ title, payload }) => ({
      subject: `Overdue: review ${title}`,
      message: `Your review of the document ${title} was due${due(payload.dueAt)} and has not been given yet.`,
    }),
  },
  'share.accessed': {
    email: 'off',
    offByDefault: true,
    text: ({ title, payload }) => {
      const downloads = typeof payload.downloads === 'number' && payload.downloads > 1 ? payload.downloads : 1;
      return {
        subject: `Your share link of ${title} was used`,
        message:
          downloads === 1
            ? `Someone downloaded the document ${title} through a share link you made.`
            : `The document ${title} was downloaded ${downloads} times through a share link you made.`,
      };
    },
  },
  'search.matched': {
    email: 'off',
    text: ({ title, payload }) => {
      const search = said(payload.searchName) ?? 'a saved search';
      return {
        subject: `${title} matches "${search}"`,
        message: `The document ${title} now matches your saved search "${search}".`,
      };
    },
  },
  'webhook.disabled': {
    email: 'immediate',
    text: ({ payload }) => {
      const url = said(payload.url) ?? 'a webhook';
      const failures = typeof payload.failures === 'number' ? payload.failures : 'many';
      return {
        subject: `Webhook disabled: ${url}`,
        message: `The webhook ${url} was disabled after ${failures} failed deliveries in a row; fix the receiver and enable it again.`,
      };
    },
  },
} satisfies Record<string, EventDefinition>;

export type DomainEventType = keyof typeof EVENT_CATALOGUE;
export const DOMAIN_EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as DomainEventType[];

export function eventDefinition(type: DomainEventType): EventDefinition {
  return EVENT_CATALOGUE[type];
}

/** Whether saved searches are to be matched again after an event of this type (see EventDefinition). */
export function changesSearchMatches(type: string): boolean {
  return (EVENT_CATALOGUE as Record<string, EventDefinition>)[type]?.changesSearchMatches === true;
}

/** Whether a stored event type (any string) passes quiet hours and snooze. */
export function isUrgentEvent(type: string): boolean {
  return (EVENT_CATALOGUE as Record<string, EventDefinition>)[type]?.urgent === true;
}
