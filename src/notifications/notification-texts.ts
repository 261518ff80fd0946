import type { DomainEventType } from '../events/domain-event.js';

/** What a notification's text can name; read at dispatch time, with the event's payload as fallback. */
export interface EventContext {
  type: DomainEventType;
  actorName: string;
  documentTitle: string | null;
  projectName: string | null;
  payload: Record<string, unknown>;
}

export const SUBJECT_MAX_LENGTH = 255;

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The subject (at most 255 code points) and message of the notifications made for one event. */
export function notificationText(context: EventContext): { subject: string; message: string } {
  const { actorName: actor, payload } = context;
  const title = `"${context.documentTitle ?? text(payload.title) ?? 'a document'}"`;
  const project = context.projectName ?? text(payload.projectName) ?? 'a project';
  let subject: string;
  let message: string;
  switch (context.type) {
    case 'document.created':
      subject = `New document ${title}`;
      message = `${actor} added the document ${title} to the project ${project}.`;
      break;
    case 'document.updated':
      subject = `${title} was updated`;
      message = `${actor} changed the details of the document ${title}.`;
      break;
    case 'document.version_added': {
      const version = typeof payload.version === 'number' ? ` (version ${payload.version})` : '';
      subject = `New version of ${title}`;
      message = `${actor} uploaded a new version of the document ${title}${version}.`;
      break;
    }
    case 'document.status_changed': {
      const from = text(payload.from);
      const to = text(payload.to);
      subject = to ? `${title} is now ${to}` : `The status of ${title} changed`;
      message = `${actor} changed the status of the document ${title}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}.`;
      break;
    }
    case 'document.deleted':
      subject = `${title} was moved to the trash`;
      message = `${actor} deleted the document ${title}.`;
      break;
    case 'document.restored':
      subject = `${title} was restored`;
      message = `${actor} restored the document ${title} from the trash.`;
      break;
    case 'document.retention_applied': {
      const done = { archive: 'archived', trash: 'moved to the trash', purge: 'deleted for good' }[
        String(payload.action) as 'archive' | 'trash' | 'purge'
      ];
      const days = typeof payload.days === 'number' ? ` after ${payload.days} days` : '';
      subject = `${title} was ${done ?? 'retained'} by retention`;
      message = `The retention policy of its document type${days} ${done ? `has ${done}` : 'applied to'} the document ${title}.`;
      break;
    }
    case 'comment.created':
      subject = `New comment on ${title}`;
      message = `${actor} commented on the document ${title}: ${text(payload.excerpt) ?? ''}`;
      break;
    case 'comment.mentioned':
      subject = `${actor} mentioned you on ${title}`;
      message = `${actor} mentioned you in a comment on the document ${title}: ${text(payload.excerpt) ?? ''}`;
      break;
    case 'review.requested': {
      const due = dueText(payload.dueAt);
      subject = `Urgent: review ${title}${due}`;
      message = `${actor} asks you to review the document ${title}${due}.${quoted(payload.message)}`;
      break;
    }
    case 'review.decided': {
      const approved = payload.decision === 'approve';
      subject = `${actor} ${approved ? 'approved' : 'rejected'} ${title}`;
      message = `${actor} ${approved ? 'approved' : 'rejected'} the document ${title} in review.${quoted(payload.comment)}`;
      break;
    }
    case 'review.reminder':
      subject = `Reminder: review ${title}${dueText(payload.dueAt)}`;
      message = `Your review of the document ${title} is due${dueText(payload.dueAt) || ' soon'}.`;
      break;
    case 'review.overdue':
      subject = `Overdue: review ${title}`;
      message = `Your review of the document ${title} was due${dueText(payload.dueAt)} and has not been given yet.`;
      break;
    case 'share.accessed':
      subject = `Your share link of ${title} was used`;
      message = `Someone downloaded the document ${title} through a share link you made.`;
      break;
    case 'search.matched': {
      const search = text(payload.searchName) ?? 'a saved search';
      subject = `${title} matches "${search}"`;
      message = `The document ${title} now matches your saved search "${search}".`;
      break;
    }
    case 'webhook.disabled': {
      const url = text(payload.url) ?? 'a webhook';
      subject = `Webhook disabled: ${url}`;
      message = `The webhook ${url} was disabled after ${typeof payload.failures === 'number' ? payload.failures : 'many'} failed deliveries in a row; fix the receiver and enable it again.`;
      break;
    }
    case 'project.member_added': {
      const role = text(payload.role);
      subject = `You were added to ${project}`;
      message = `${actor} added you to the project ${project}${role ? ` as ${role}` : ''}.`;
      break;
    }
  }
  return { subject: truncate(subject, SUBJECT_MAX_LENGTH), message };
}

function dueText(value: unknown): string {
  return typeof value === 'string' ? ` by ${value}` : '';
}

function quoted(value: unknown): string {
  const said = text(value);
  return said ? ` "${said}"` : '';
}

function truncate(value: string, max: number): string {
  const points = Array.from(value);
  return points.length <= max ? value : `${points.slice(0, max - 1).join('')}…`;
}
